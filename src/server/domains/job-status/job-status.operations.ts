import { z } from 'zod';
import { routes } from '../../../shared/api/routes.ts';
import { jobStateSchema, jobTokensInput } from '../../../shared/schemas/jobs.ts';
import { bindOperations, handwritten } from '../../operations/binding.ts';
import { getJobStates } from './job-status.service.ts';

/** Job state and events by access token (spec §7 POST /jobs, GET /jobs); no bearer needed, the tokens are the access. */
export const jobOperations = bindOperations('Jobs', routes.jobs, {
  state: {
    body: jobTokensInput,
    reply: z.array(jobStateSchema),
    summary: 'The current state of the jobs of the given tokens, in token order',
    errors: [],
    actor: 'none',
    run: ({ deps, body }) => getJobStates(deps, body.tokens),
  },
  events: handwritten('a stream of server-sent events held open (job-status.rest.ts)'),
});
