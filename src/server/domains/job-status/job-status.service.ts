import { inArray } from 'drizzle-orm';
import type { JobState } from '../../../shared/schemas/jobs.ts';
import { jobs } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../errors.ts';
import { jobStateOf, openJobEventStream } from '../../jobs/events.ts';
import { jobIdOfToken } from './job-tokens.ts';

const jobNotFound = (index: number) => new AppError('not_found', `Job ${index} not found`, { index });

/** Job ids of the tokens, in order; an invalid token is not_found with details.index (like a forgotten job). */
function jobIdsOfTokens(deps: Deps, tokens: readonly string[]): string[] {
  return tokens.map((token, index) => {
    const id = jobIdOfToken(deps, token);
    if (id === undefined) throw jobNotFound(index);
    return id;
  });
}

/**
 * POST /jobs: the current state of each token's job, in token order. Any invalid token, or a job that no
 * longer exists (finished jobs are forgotten after a week), makes the whole call not_found with
 * details.index, the position of the first such token.
 */
export async function getJobStates(deps: Deps, tokens: readonly string[]): Promise<JobState[]> {
  const ids = jobIdsOfTokens(deps, tokens);
  const rows = await deps.db.select().from(jobs).where(inArray(jobs.id, [...new Set(ids)]));
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id, index) => {
    const job = byId.get(id);
    if (!job) throw jobNotFound(index);
    return jobStateOf(job, index);
  });
}

/**
 * GET /jobs: the job_updated event stream of the tokens' jobs (jobs/events.ts). Errors (not_found with
 * details.index) come before any byte is streamed, so REST answers them as an ordinary error response.
 */
export async function streamJobEvents(deps: Deps, tokens: readonly string[], signal?: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  return openJobEventStream(deps, jobIdsOfTokens(deps, tokens), signal);
}
