import type { Deps } from '../deps.ts';
import { createPlayHandler } from './play-handler.ts';

export type PlayServer = { url: string; port: number; stop(): Promise<void> };

/** The play origin's own listener (same process, another port: another origin for the browser). */
export function startPlayServer(deps: Deps, options: { port: number; hostname: string }): PlayServer {
  const handle = createPlayHandler(deps);
  const server = Bun.serve({
    port: options.port,
    hostname: options.hostname,
    development: false,
    // Only GET, HEAD and OPTIONS are served: no body worth reading.
    maxRequestBodySize: 64 * 1024,
    fetch: handle,
  });
  const shownHost = options.hostname === '0.0.0.0' || options.hostname === '::' ? '127.0.0.1' : options.hostname;
  return {
    url: `http://${shownHost}:${server.port}`,
    port: server.port ?? options.port,
    stop: () => server.stop(true),
  };
}
