import { jobTokensInput } from '../../../shared/schemas/jobs.ts';
import { procedure, router } from '../../trpc/init.ts';
import { getJobStates } from './job-status.service.ts';

/** POST /jobs over tRPC; the event stream is REST only (GET /api/jobs). */
export const jobStatusRouter = router({
  state: procedure.input(jobTokensInput).query(({ ctx, input }) => getJobStates(ctx.deps, input.tokens)),
});
