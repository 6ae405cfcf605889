import { Elysia } from 'elysia';
import type { Logger } from '../logger.ts';

/** One structured line per request: method, path without query (queries can carry tokens), status, time. */
export function requestLog(log: Logger) {
  return new Elysia({ name: 'request-log' })
    .derive({ as: 'global' }, () => ({ requestStartedAt: performance.now() }))
    .onAfterResponse({ as: 'global' }, ({ request, path, set, requestStartedAt, responseValue }) => {
      const status = responseValue instanceof Response ? responseValue.status : typeof set.status === 'number' ? set.status : 200;
      log.info('request', {
        method: request.method,
        path,
        status,
        ms: requestStartedAt === undefined ? undefined : Math.round((performance.now() - requestStartedAt) * 10) / 10,
      });
    });
}
