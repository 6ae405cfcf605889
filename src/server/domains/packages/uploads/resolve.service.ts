import { and, eq } from 'drizzle-orm';
import type { StartedJob } from '../../../../shared/schemas/jobs.ts';
import { jobs, packages } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { AppError } from '../../../errors.ts';
import type { Actor } from '../../auth/actor.ts';
import { issueJobToken } from '../../job-status/job-tokens.ts';
import { loadProjectAccess, requireAction } from '../../projects/access.ts';
import { getVisiblePackage } from '../records/package-rows.ts';
import { resolveJob } from './resolve.job.ts';

/**
 * POST .../packages/{package}/resolve (publishVersion): queues the resolve job of a patch package and
 * answers its id and token (GET /api/jobs). not_patch for a package without a base, not_finalized while
 * it is still uploading. At most one queued resolve per package (dedupe key): a repeat answers that job.
 * A ready package gets a job too, which answers at once: clients follow one path.
 */
export async function resolvePackage(deps: Deps, actor: Actor, projectId: string, packageId: string): Promise<StartedJob> {
  const access = await loadProjectAccess(deps, actor, projectId);
  const row = await getVisiblePackage(deps.db, access, packageId);
  requireAction(access, 'publishVersion');
  if (row.status === 'uploading') throw new AppError('not_finalized', 'Finalize the package first');
  if (!row.basePackageId) throw new AppError('not_patch', 'The package is not a patch');
  if (row.status === 'errored') {
    await deps.db.update(packages).set({ status: 'finalized', error: null }).where(and(eq(packages.id, packageId), eq(packages.status, 'errored')));
  }
  const dedupeKey = `package:${packageId}`;
  const job =
    (await resolveJob.enqueue(deps.db, { packageId }, { projectId, dedupeKey })) ??
    (await deps.db.select().from(jobs).where(and(eq(jobs.kind, resolveJob.kind), eq(jobs.dedupeKey, dedupeKey), eq(jobs.status, 'queued'))))[0];
  if (!job) throw new AppError('unexpected_error', 'The resolve job could not be queued');
  deps.jobSignal.notify();
  return { job: job.id, token: issueJobToken(deps, job.id) };
}
