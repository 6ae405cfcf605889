import { signingPurposes } from '../../crypto/index.ts';
import type { Deps } from '../../deps.ts';

/**
 * Job access tokens (spec §7 POST /jobs, GET /jobs): a job is visible to whoever holds its token, which
 * the call that started it returns ({ job, token }). The token is `cj_{jobId}.{mac}` where mac is the
 * job-token signer's HMAC-SHA256 of the job id: nothing is stored, every process (sharing SECRET_KEY, as
 * signed URLs require anyway) verifies it, and issuing again for a job that a deduplicated
 * enqueue returned gives the same token to every caller. It reveals the job id and nothing else.
 */

const tokenPrefix = 'cj_';

/** The token showing job jobId to its holder. */
export function issueJobToken(deps: Pick<Deps, 'keys'>, jobId: string): string {
  return `${tokenPrefix}${jobId}.${deps.keys.signer(signingPurposes.jobToken).sign(jobId)}`;
}

/** The job id a token shows, or undefined when it is not a valid token of this instance. */
export function jobIdOfToken(deps: Pick<Deps, 'keys'>, token: string): string | undefined {
  if (!token.startsWith(tokenPrefix)) return undefined;
  const dot = token.lastIndexOf('.');
  if (dot <= tokenPrefix.length) return undefined;
  const jobId = token.slice(tokenPrefix.length, dot);
  return deps.keys.signer(signingPurposes.jobToken).verify(jobId, token.slice(dot + 1)) ? jobId : undefined;
}
