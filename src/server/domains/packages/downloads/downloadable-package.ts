import { and, desc, eq, sql } from 'drizzle-orm';
import { branches, branchVersions, packages, projects, versionPackages } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { notFound } from '../../../errors.ts';
import type { Actor } from '../../auth/actor.ts';
import { getReadyPackage } from '../records/package-content.ts';
import { findPackageRow, isPackagePublic, packageColumns, type PackageRow } from '../records/package-rows.ts';
import { packageDownloadName } from '../../../../shared/packages/package-name.ts';

/** A ready package with what names its downloads. */
export type DownloadablePackage = { row: PackageRow; projectTitle: string; isPublic: boolean };

async function projectTitleOf(deps: Pick<Deps, 'db'>, projectId: string): Promise<string> {
  const [project] = await deps.db.select({ title: projects.title }).from(projects).where(eq(projects.id, projectId));
  if (!project) throw notFound('package');
  return project.title;
}

/** Project routes: members any ready package, others what the project's visibility rule shows. */
export async function getDownloadablePackage(deps: Deps, actor: Actor, projectId: string, packageId: string): Promise<DownloadablePackage> {
  const row = await getReadyPackage(deps, actor, projectId, packageId);
  return { row, projectTitle: await projectTitleOf(deps, projectId), isPublic: await isPackagePublic(deps.db, packageId) };
}

/**
 * Store routes: the project and the branch are public and the package belongs to the branch's
 * CURRENT version (its latest publish). Anything else is not_found, for members too: the store is
 * the public face and its links must not outlive a newer publish.
 */
export async function getStorePackage(deps: Deps, projectId: string, branchId: string, packageId: string): Promise<DownloadablePackage> {
  const current = deps.db
    .select({ versionId: branchVersions.versionId })
    .from(branchVersions)
    .where(eq(branchVersions.branchId, branchId))
    .orderBy(desc(branchVersions.publishedAt), desc(branchVersions.id))
    .limit(1);
  const [row] = await deps.db
    .select({ ...packageColumns, projectTitle: projects.title })
    .from(packages)
    .innerJoin(projects, and(eq(projects.id, packages.projectId), eq(projects.isPublic, true)))
    .innerJoin(branches, and(eq(branches.id, branchId), eq(branches.projectId, projects.id), eq(branches.isPublic, true)))
    .where(
      and(
        eq(packages.id, packageId),
        eq(packages.projectId, projectId),
        eq(packages.status, 'ready'),
        sql`exists (select 1 from ${versionPackages} where ${versionPackages.packageId} = ${packages.id} and ${versionPackages.versionId} = (${current}))`,
      ),
    );
  if (!row) throw notFound('package');
  const { projectTitle, ...packageRow } = row;
  return { row: packageRow as PackageRow, projectTitle, isPublic: true };
}

/** For /api/files: the signature already authorised the caller; the package must still exist. */
export async function getPackageForFile(deps: Deps, packageId: string): Promise<DownloadablePackage> {
  const row = await findPackageRow(deps.db, packageId);
  if (!row || row.status !== 'ready') throw notFound('file');
  return { row, projectTitle: await projectTitleOf(deps, row.projectId), isPublic: await isPackagePublic(deps.db, packageId) };
}

/** '{project title} {package title}.zip' (spec §7); '.crt' for the archive, '.crt-index' for the index. */
export function downloadFileName(item: DownloadablePackage, kind: 'archive' | 'index' | 'zip' | 'torrent'): string {
  return packageDownloadName(item.projectTitle, item.row, kind);
}
