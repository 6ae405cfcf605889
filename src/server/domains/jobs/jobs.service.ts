import { createHmac, timingSafeEqual } from 'node:crypto';
import { inArray } from 'drizzle-orm';
import type { JobState } from '../../../shared/schemas/jobs.ts';
import { jobs } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../errors.ts';
import { jobStateOf, openJobEventStream } from '../../jobs/events.ts';

/**
 * Job access tokens (spec §7 POST /jobs, GET /jobs): a job is visible to whoever holds its token, which
 * the call that started it returns ({ job, token }). The token is `cj_{jobId}.{mac}` where mac is an
 * HMAC-SHA256 of the job id under the instance's secret key: nothing is stored, every process (sharing
 * SECRET_KEY, as signed URLs require anyway) verifies it, and issuing again for a job that a deduplicated
 * enqueue returned gives the same token to every caller. It reveals the job id and nothing else.
 */

const tokenPrefix = 'cj_';

function macOf(secretKey: string, jobId: string): Buffer {
  return createHmac('sha256', secretKey).update(`job-token:${jobId}`).digest();
}

/** The token showing job jobId to its holder. */
export function issueJobToken(deps: Pick<Deps, 'config'>, jobId: string): string {
  return `${tokenPrefix}${jobId}.${macOf(deps.config.secretKey, jobId).toString('base64url')}`;
}

/** The job id a token shows, or undefined when it is not a valid token of this instance. */
export function jobIdOfToken(deps: Pick<Deps, 'config'>, token: string): string | undefined {
  if (!token.startsWith(tokenPrefix)) return undefined;
  const dot = token.lastIndexOf('.');
  if (dot <= tokenPrefix.length) return undefined;
  const jobId = token.slice(tokenPrefix.length, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = macOf(deps.config.secretKey, jobId);
  return given.length === expected.length && timingSafeEqual(given, expected) ? jobId : undefined;
}

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
