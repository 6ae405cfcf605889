import { Elysia } from 'elysia';
import { routes } from '../../../shared/api/routes.ts';
import { jobStreamQuery } from '../../../shared/schemas/jobs.ts';
import type { Deps } from '../../deps.ts';
import { streamJobEvents } from './job-status.service.ts';

/** The hand-written job events stream (GET /jobs, held open); the tokens are the access. */
export function jobStatusRoutes(deps: Deps) {
  return new Elysia({ tags: ['Jobs'] })
    .get(
      routes.jobs.events.path,
      async ({ query, request, server }) => {
        const tokens = typeof query.token === 'string' ? [query.token] : query.token;
        const stream = await streamJobEvents(deps, tokens, request.signal);
        // The stream may stay quiet longer than Bun's idle timeout (10 s) between events and keep-alives.
        server?.timeout(request, 0);
        return new Response(stream, {
          headers: {
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-store',
            'x-accel-buffering': 'no',
          },
        });
      },
      {
        query: jobStreamQuery,
        detail: {
          summary: 'Server-sent job_updated events for the jobs of the repeated `token` query (see README "Job events")',
          responses: { 200: { description: 'text/event-stream of `job_updated` events', content: { 'text/event-stream': {} } } },
        },
      },
    );
}
