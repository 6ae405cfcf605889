import { eq } from 'drizzle-orm';
import type { Quotas } from '../../../shared/schemas/projects.ts';
import type { Config } from '../../config.ts';
import type { Executor } from '../../db/client.ts';
import { projects } from '../../db/schema/index.ts';
import { notFound } from '../../errors.ts';

/**
 * The one quota resolution: the project's override, else the instance default; 0 means no limit and is
 * reported as null. Branch retention puts the branch's own override in front of this (retention.service
 * effectiveRetention). Takes an executor so it can run inside a caller's transaction.
 */
export async function readProjectQuotas(db: Executor, defaults: Config['quotas'], projectId: string): Promise<Quotas> {
  const [row] = await db
    .select({
      packageSize: projects.quotaPackageSize,
      branchVersionsCount: projects.quotaBranchVersionsCount,
      branchVersionsTime: projects.quotaBranchVersionsTime,
      branchVersionsNonCurrentTime: projects.quotaBranchVersionsNonCurrentTime,
    })
    .from(projects)
    .where(eq(projects.id, projectId));
  if (!row) throw notFound('project');
  const pick = (override: number | null, fallback: number) => {
    const value = override ?? fallback;
    return value === 0 ? null : value;
  };
  return {
    packageSize: pick(row.packageSize, defaults.packageSize),
    branchVersionsCount: pick(row.branchVersionsCount, defaults.branchVersionsCount),
    branchVersionsTime: pick(row.branchVersionsTime, defaults.branchVersionsTime),
    branchVersionsNonCurrentTime: pick(row.branchVersionsNonCurrentTime, defaults.branchVersionsNonCurrentTime),
  };
}
