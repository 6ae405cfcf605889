import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { packages, versionPackages, versions } from '../../../db/schema/index.ts';
import { AppError } from '../../../errors.ts';
import { enqueueChunkCollection } from '../chunks/chunk-gc.job.ts';
import type { PackageRow } from './package-rows.ts';

/**
 * The one way a package goes (a user's DELETE and the orphan collector): refused (not_empty) while a
 * version lists it or an unfinished patch is based on it (its resolve needs the base's chunks); else its
 * rows go and a chunk_gc job releases its blobs. Call it in a transaction holding the project's and the
 * package's row locks (createVersion takes the project's, so no version can list it meanwhile); the
 * caller notifies the job signal after the commit.
 */
export async function removePackage(tx: Executor, row: Pick<PackageRow, 'id' | 'projectId' | 'compression'>): Promise<void> {
  const listed = await tx
    .select({ id: versions.id, title: versions.title })
    .from(versionPackages)
    .innerJoin(versions, eq(versions.id, versionPackages.versionId))
    .where(eq(versionPackages.packageId, row.id));
  if (listed.length > 0) {
    throw new AppError('not_empty', `The package is part of: ${listed.map((item) => item.title).join(', ')}`, { versions: listed });
  }
  const patches = await tx
    .select({ id: packages.id })
    .from(packages)
    .where(and(eq(packages.basePackageId, row.id), inArray(packages.status, ['uploading', 'finalized', 'resolving'])));
  if (patches.length > 0) throw new AppError('not_empty', 'An unfinished patch is based on this package', { packages: patches });
  await tx.delete(packages).where(eq(packages.id, row.id));
  await enqueueChunkCollection(tx, { packageId: row.id, projectId: row.projectId, compression: row.compression === 1 ? 1 : 0 });
}
