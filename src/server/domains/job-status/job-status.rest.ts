import { Elysia } from 'elysia';
import { z } from 'zod';
import { jobStateSchema, jobStreamQuery, jobTokensInput } from '../../../shared/schemas/jobs.ts';
import type { Deps } from '../../deps.ts';
import { getJobStates, streamJobEvents } from './job-status.service.ts';

/** Job state and events by access token (spec §7 POST /jobs, GET /jobs); no bearer needed, the tokens are the access. */
export function jobStatusRoutes(deps: Deps) {
  return new Elysia({ tags: ['Jobs'] })
    .post('/jobs', ({ body }) => getJobStates(deps, body.tokens), {
      body: jobTokensInput,
      response: z.array(jobStateSchema),
      detail: { summary: 'The current state of the jobs of the given tokens, in token order' },
    })
    .get(
      '/jobs',
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
