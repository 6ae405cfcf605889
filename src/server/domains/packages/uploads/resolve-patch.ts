import { and, eq, inArray, sql } from 'drizzle-orm';
import { fromHex, listUniqueChunks, toHex, type ArchiveIndex, type CompressionAlgorithm } from '../../../../shared/archive/index.ts';
import { packageChunks, packages } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { AppError } from '../../../errors.ts';
import { chunkIdentity } from '../blob-keys.ts';
import { lockChunkStoreShared } from '../../../storage/chunk-store-lock.ts';
import { findMissingChunk, findStoredChunks, type ChunkId } from '../chunks/stored-chunks.ts';
import { enqueuePackagePrepare } from '../downloads/package-prepare.job.ts';
import { storeZipCrcs } from '../downloads/zip/crc.ts';
import { fileCrcsFromChunks } from '../downloads/zip/file-crcs.ts';
import { readPackageIndex } from '../records/package-content.ts';
import { findPackageRow } from '../records/package-rows.ts';
import { insertPackageChunks } from './finalize.service.ts';

/**
 * The resolve job's work (resolve.job.ts): every chunk the patch's full index references must be
 * stored (its own chunks at finalize, the others by the base); then the package records all of them (so
 * it no longer depends on its base) and becomes ready. A missing chunk marks it errored (unexpected_patch).
 * The ZIP's CRC-32s come from the chunks' CRCs (stored_chunks), without reading a byte; when a chunk is
 * a legacy blob (no CRC recorded) the package_prepare job computes them as before.
 */
export async function resolvePatch(deps: Deps, packageId: string, signal?: AbortSignal): Promise<{ package: string }> {
  const row = await findPackageRow(deps.db, packageId);
  if (!row) throw new AppError('not_found', 'package not found');
  if (row.status === 'ready') return { package: packageId };
  if (row.status === 'uploading') throw new AppError('not_finalized', 'The package is not finalized');
  // A job whose lease was lost (signal) stops before each change: another attempt makes it.
  signal?.throwIfAborted();
  await deps.db.update(packages).set({ status: 'resolving' }).where(and(eq(packages.id, packageId), inArray(packages.status, ['finalized', 'resolving'])));
  const index = await readPackageIndex(deps, packageId);
  const compression = index.compression as CompressionAlgorithm;
  const all = listUniqueChunks(index).map((chunk) => ({ hash: toHex(chunk.hash), size: chunk.size, compressedSize: chunk.compressedSize }));
  const own = new Set((await deps.db.select({ hash: packageChunks.hash }).from(packageChunks).where(eq(packageChunks.packageId, packageId))).map((item) => item.hash));
  const others = all.filter((chunk) => !own.has(chunk.hash));
  const missing = await findMissingChunk(deps.db, deps.storage, compression, others);
  signal?.throwIfAborted();
  if (missing) {
    const error = `The patch needs chunk ${missing.hash}, which neither it nor its base holds`;
    await deps.db.update(packages).set({ status: 'errored', error, touchedAt: sql`now()` }).where(eq(packages.id, packageId));
    throw new AppError('unexpected_patch', error);
  }
  await storeCrcsFromChunks(deps, row.id, row.indexHash!, index, compression, all);
  signal?.throwIfAborted();
  return deps.db.transaction(async (tx) => {
    await lockChunkStoreShared(tx);
    // Again under the lock: the chunk collector may have taken one meanwhile (then the job retries).
    if (await findMissingChunk(tx, deps.storage, compression, others)) throw new AppError('unexpected_error', 'A chunk was collected while resolving');
    await insertPackageChunks(tx, packageId, others);
    await tx
      .update(packages)
      .set({ status: 'ready', storedSize: all.reduce((sum, chunk) => sum + chunk.compressedSize, 0), chunkCount: all.length, error: null, touchedAt: sql`now()` })
      .where(eq(packages.id, packageId));
    await enqueuePackagePrepare(tx, row.projectId, packageId);
    return { package: packageId };
  });
}

async function storeCrcsFromChunks(deps: Deps, packageId: string, indexHash: string, index: ArchiveIndex, compression: CompressionAlgorithm, chunks: ChunkId[]): Promise<void> {
  const rows = await findStoredChunks(deps.db, compression, chunks);
  const crcs = new Map<string, number>();
  for (const chunk of chunks) {
    const crc = rows.get(chunkIdentity(compression, chunk.hash, chunk.compressedSize))?.crc32;
    if (crc !== undefined) crcs.set(chunk.hash, crc);
  }
  const fileCrcs = fileCrcsFromChunks(index, (hash) => crcs.get(hash));
  if (fileCrcs) await storeZipCrcs(deps, packageId, fileCrcs, fromHex(indexHash));
}
