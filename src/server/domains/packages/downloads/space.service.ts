import { eq, sql } from 'drizzle-orm';
import type { PackageSpace } from '../../../../shared/schemas/package-downloads.ts';
import { packageChunks } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import type { Actor } from '../../auth/actor.ts';
import { getDownloadablePackage, getStorePackage, type DownloadablePackage } from './downloadable-package.ts';

/**
 * GET .../space: size = bytes of its files (what a player's disk needs), storedSize = bytes its
 * distinct chunks take in storage (compressed), exclusiveSize = the part of storedSize no other
 * package of the project references (what deleting it alone would free, chunks shared with other
 * projects aside: storage is content-addressed across projects too). Another package shares a chunk
 * when it uses the same stored copy: same compression and same stored size (blob-keys.ts; raw chunks
 * always store size bytes). Dead bytes in packs awaiting a repack are nobody's.
 */
async function spaceOf(deps: Deps, item: DownloadablePackage): Promise<PackageSpace> {
  const [row] = await deps.db
    .select({
      storedSize: sql<string>`coalesce(sum(${packageChunks.compressedSize}), 0)`,
      // Spelled out with aliases: drizzle leaves columns of a one-table select unqualified.
      exclusiveSize: sql<string>`coalesce(sum(package_chunks.compressed_size) filter (where not exists (
        select 1 from package_chunks other join packages other_package on other_package.id = other.package_id
        where other.hash = package_chunks.hash and other.package_id <> package_chunks.package_id
          and other.compressed_size = package_chunks.compressed_size
          and other_package.compression = ${item.row.compression ?? 0}
          and other_package.project_id = ${item.row.projectId})), 0)`,
    })
    .from(packageChunks)
    .where(eq(packageChunks.packageId, item.row.id));
  return {
    size: item.row.totalSize ?? 0,
    storedSize: Number(row?.storedSize ?? 0),
    exclusiveSize: Number(row?.exclusiveSize ?? 0),
  };
}

export async function getPackageSpace(deps: Deps, actor: Actor, projectId: string, packageId: string): Promise<PackageSpace> {
  return spaceOf(deps, await getDownloadablePackage(deps, actor, projectId, packageId));
}

export async function getStorePackageSpace(deps: Deps, projectId: string, branchId: string, packageId: string): Promise<PackageSpace> {
  return spaceOf(deps, await getStorePackage(deps, projectId, branchId, packageId));
}
