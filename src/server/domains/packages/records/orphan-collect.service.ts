import { and, asc, eq, gt, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { packages, projects, versionPackages } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { AppError } from '../../../errors.ts';
import type { JobContext } from '../../../jobs/define-job.ts';
import { findPackageRow } from './package-rows.ts';
import { removePackage } from './remove-package.ts';

export type OrphanCollection = { collected: number; kept: number };

const batchSize = 200;

/**
 * A package nobody can reach from a version and nobody touched for ORPHAN_PACKAGE_DAYS: left by a new
 * package dialog closed mid-way, or by a deleted version. Only finished ones ('ready', or a patch whose
 * resolve failed for good, 'errored'): an upload under way or a patch still resolving is never taken
 * (expired uploads are the storage sweep's).
 */
function orphanOf(cutoff: Date): SQL {
  return and(
    inArray(packages.status, ['ready', 'errored']),
    lt(packages.touchedAt, cutoff),
    sql`not exists (select 1 from ${versionPackages} where ${versionPackages.packageId} = ${packages.id})`,
  )!;
}

/**
 * The 'orphan_packages_collect' job's work (hourly). Each candidate goes in a transaction of its own
 * holding its project's and its row lock (the order deletePackage takes them), re-checked there, through
 * removePackage, the path a user's delete takes (its blobs by chunk_gc). One another step still needs
 * (the base of an unfinished patch) is kept and counted. `now` may be moved by tests.
 */
export async function collectOrphanPackages(deps: Deps, now = Date.now(), context?: Pick<JobContext, 'assertHolds'>): Promise<OrphanCollection> {
  const result: OrphanCollection = { collected: 0, kept: 0 };
  if (deps.config.orphanPackages.graceMs === 0) return result;
  const cutoff = new Date(now - deps.config.orphanPackages.graceMs);
  let after = '';
  for (;;) {
    const candidates = await deps.db
      .select({ id: packages.id, projectId: packages.projectId })
      .from(packages)
      .where(and(orphanOf(cutoff), gt(packages.id, after)))
      .orderBy(asc(packages.id))
      .limit(batchSize);
    if (candidates.length === 0) break;
    after = candidates.at(-1)!.id;
    for (const candidate of candidates) {
      context?.assertHolds();
      const removed = await deps.db.transaction(async (tx) => {
        await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, candidate.projectId)).for('update');
        const row = await findPackageRow(tx, candidate.id, { lock: true });
        if (!row || !(row.status === 'ready' || row.status === 'errored') || row.touchedAt >= cutoff) return false;
        try {
          await removePackage(tx, row);
          return true;
        } catch (error) {
          // Listed by a version since, or the base of a patch still resolving: it stays (refused
          // before removePackage wrote anything).
          if (error instanceof AppError && error.code === 'not_empty') return false;
          throw error;
        }
      });
      if (removed) result.collected++;
      else result.kept++;
    }
  }
  if (result.collected > 0) deps.jobSignal.notify();
  return result;
}
