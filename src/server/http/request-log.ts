import type { Logger } from '../logger.ts';
import { loggablePath } from './loggable-path.ts';

type Fetch = (request: Request) => Promise<Response>;

/**
 * One structured line per request the app answers: method, path (without the query, credentials in it
 * masked: loggable-path.ts), the status of the response actually sent (a 404 of an unmatched route
 * included), and the time until it was ready. Wraps the whole app (serve.ts) rather than hooking into
 * Elysia, whose hooks see neither the final status of every answer nor always the path alone.
 */
export function withRequestLog(log: Logger, fetch: Fetch): Fetch {
  return async (request) => {
    const started = performance.now();
    let status = 500;
    try {
      const response = await fetch(request);
      status = response.status;
      return response;
    } finally {
      log.info('request', {
        method: request.method,
        path: loggablePath(new URL(request.url).pathname),
        status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      });
    }
  };
}
