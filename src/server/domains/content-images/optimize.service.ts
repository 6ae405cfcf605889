import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { StartedJob } from '../../../shared/schemas/jobs.ts';
import { jobs } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../auth/actor.ts';
import { issueJobToken } from '../job-status/job-tokens.ts';
import { optimizeContentImagesJob } from './optimize.job.ts';

const dedupeKey = 'content_images_optimize';

async function pendingJob(deps: Deps): Promise<{ id: string } | undefined> {
  const [job] = await deps.db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.kind, optimizeContentImagesJob.kind), inArray(jobs.status, ['queued', 'running'])))
    // A queued one first (it will see every image), then the newest running one.
    .orderBy(sql`${jobs.status} = 'queued' desc`, desc(jobs.createdAt))
    .limit(1);
  return job;
}

/**
 * POST /api/admin/maintenance/optimize-content-images (spec §2 the unlisted admin path's 'Optimize
 * images', §7): instance administrators queue the job re-encoding every content image; to anyone else
 * the route does not exist (not_found, the body of an unknown path). One such job at a time: while one
 * is queued or running, starting again answers that job. Follow it with GET /api/jobs?token=...
 */
export async function startContentImageOptimisation(deps: Deps, actor: Actor): Promise<StartedJob> {
  if (actor.kind !== 'user' || !actor.isAdmin) throw new AppError('not_found', 'not found');
  const job = (await pendingJob(deps)) ?? (await optimizeContentImagesJob.enqueue(deps.db, {}, { dedupeKey })) ?? (await pendingJob(deps));
  if (!job) throw new AppError('unexpected_error', 'The optimise job could not be queued');
  deps.jobSignal.notify();
  return { job: job.id, token: issueJobToken(deps, job.id) };
}
