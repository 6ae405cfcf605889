import clientIndex from '../client/index.html';
import { createApp } from './app.ts';
import type { Deps } from './deps.ts';
import { clientRoutes } from './http/client-assets.ts';

export type RunningServer = { url: string; port: number; stop(): Promise<void> };

/**
 * Bun's router serves the single-page client (hashed bundles in production, reload in development);
 * Elysia's prefixes are listed as false so they fall through to the app.
 */
export function startServer(deps: Deps, options: { port: number; hostname: string; development?: boolean }): RunningServer {
  const app = createApp(deps);
  const server = Bun.serve({
    port: options.port,
    hostname: options.hostname,
    development: options.development ?? false,
    maxRequestBodySize: 1024 * 1024 * 1024,
    routes: { ...clientRoutes(clientIndex), '/api/*': false, '/trpc/*': false, '/health': false },
    fetch: app.fetch,
  });
  // Elysia reads the client address through the server it believes it listens on.
  (app as unknown as { server: typeof server }).server = server;
  const shownHost = options.hostname === '0.0.0.0' || options.hostname === '::' ? 'localhost' : options.hostname;
  return {
    url: `http://${shownHost}:${server.port}`,
    port: server.port ?? options.port,
    stop: () => server.stop(true),
  };
}
