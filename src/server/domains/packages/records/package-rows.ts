import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { branches, branchVersions, packages, projects, versionPackages } from '../../../db/schema/index.ts';
import { notFound } from '../../../errors.ts';
import type { ProjectAccess } from '../../projects/access.ts';

/** The columns services read (never the token hash). */
export const packageColumns = {
  id: packages.id,
  projectId: packages.projectId,
  title: packages.title,
  tags: packages.tags,
  entrypoint: packages.entrypoint,
  declaredSize: packages.declaredSize,
  basePackageId: packages.basePackageId,
  status: packages.status,
  uploadExpiresAt: packages.uploadExpiresAt,
  indexHash: packages.indexHash,
  totalSize: packages.totalSize,
  storedSize: packages.storedSize,
  compression: packages.compression,
  chunkCount: packages.chunkCount,
  error: packages.error,
  finalizedParts: packages.finalizedParts,
  createdAt: packages.createdAt,
  finalizedAt: packages.finalizedAt,
  touchedAt: packages.touchedAt,
};

export type PackageRow = {
  id: string;
  projectId: string;
  title: string | null;
  tags: string[];
  entrypoint: string[] | null;
  declaredSize: number;
  basePackageId: string | null;
  status: 'uploading' | 'finalized' | 'resolving' | 'ready' | 'errored';
  uploadExpiresAt: Date | null;
  indexHash: string | null;
  totalSize: number | null;
  storedSize: number | null;
  compression: number | null;
  chunkCount: number | null;
  error: string | null;
  finalizedParts: { part: number; hash: string; size: number }[] | null;
  createdAt: Date;
  finalizedAt: Date | null;
  touchedAt: Date;
};

/**
 * Non-members see a package only when a version listing it was published to a public branch (the
 * versions' own visibility rule, one step further); members see every package of the project.
 */
export const packageInPublicBranch = sql`exists (select 1 from ${versionPackages}
  join ${branchVersions} on ${branchVersions.versionId} = ${versionPackages.versionId}
  join ${branches} on ${branches.id} = ${branchVersions.branchId}
  where ${versionPackages.packageId} = ${packages.id} and ${branches.isPublic})`;

/** A package of the project the caller may see (any status), or not_found. `lock` takes its row lock. */
export async function getVisiblePackage(db: Executor, access: ProjectAccess, packageId: string, options: { lock?: boolean } = {}): Promise<PackageRow> {
  const query = db
    .select(packageColumns)
    .from(packages)
    .where(and(eq(packages.id, packageId), eq(packages.projectId, access.project.id), access.userIsMember ? undefined : packageInPublicBranch));
  const [row] = options.lock ? await query.for('update') : await query;
  if (!row) throw notFound('package');
  return row as PackageRow;
}

/** A package by id without any access check (jobs and upload-token paths). */
export async function findPackageRow(db: Executor, packageId: string, options: { lock?: boolean } = {}): Promise<PackageRow | undefined> {
  const query = db.select(packageColumns).from(packages).where(eq(packages.id, packageId));
  const [row] = options.lock ? await query.for('update') : await query;
  return row as PackageRow | undefined;
}

/** Whether visitors may see the package: a public project and a version of it published to a public branch. */
export async function isPackagePublic(db: Executor, packageId: string): Promise<boolean> {
  const rows = await db
    .select({ id: packages.id })
    .from(packages)
    .innerJoin(projects, and(eq(projects.id, packages.projectId), eq(projects.isPublic, true)))
    .where(and(eq(packages.id, packageId), packageInPublicBranch))
    .limit(1);
  return rows.length > 0;
}
