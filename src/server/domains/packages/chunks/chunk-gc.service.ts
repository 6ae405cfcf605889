import { and, eq, inArray, sql } from 'drizzle-orm';
import { decodeIndex, listUniqueChunks, toHex, type CompressionAlgorithm } from '../../../../shared/archive/index.ts';
import type { Executor } from '../../../db/client.ts';
import { packageChunks, packages } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { chunkIdentity, chunkKey, indexKey, packagePrefix, uploadPrefix } from '../blob-keys.ts';
import { withChunkStoreExclusive } from '../../../storage/chunk-store-lock.ts';
import { maintainPacks, type PackMaintenance } from '../packs/pack-maintenance.ts';
import { rowsOfResult, unnestRows } from '../../../db/sql-rows.ts';

/**
 * Chunk garbage collection. Deleting a package removes its rows at once (package_chunks cascade) and
 * queues a chunk_gc job (chunk-gc.job.ts) that later deletes its index and derived blobs, any upload
 * parts, its files in the local download cache, and each of its chunks no package references any more
 * (package_chunks of every package): the stored_chunks row of a chunk in a pack, the blob of a legacy
 * one. The packs that lost rows are then deleted when empty or repacked when mostly dead
 * (pack-maintenance.ts). Concurrent uploads: see chunk-store-lock.ts.
 */
export type ChunkCollectionPayload = { packageId: string; projectId: string; compression: 0 | 1 };

const batchSize = 500;

/** Deletes the stored_chunks rows of `chunks`; returns the identities deleted and the packs they were in. */
async function deleteStoredChunkRows(
  tx: Executor,
  compression: CompressionAlgorithm,
  chunks: readonly { hash: string; compressedSize: number }[],
): Promise<{ identities: Set<string>; packIds: Set<string> }> {
  const identities = new Set<string>();
  const packIds = new Set<string>();
  if (chunks.length === 0) return { identities, packIds };
  const list = unnestRows('c', [
    ['hash', 'text', chunks.map((chunk) => chunk.hash)],
    ['compressed_size', 'integer', chunks.map((chunk) => chunk.compressedSize)],
  ]);
  const result = await tx.execute(sql`delete from stored_chunks s using ${list}
    where s.compression = ${compression} and s.hash = c.hash and s.compressed_size = c.compressed_size
    returning s.hash, s.compressed_size, s.pack_id`);
  for (const row of rowsOfResult<{ hash: string; compressed_size: number; pack_id: string }>(result)) {
    identities.add(chunkIdentity(compression, row.hash, Number(row.compressed_size)));
    packIds.add(row.pack_id);
  }
  return { identities, packIds };
}

/**
 * A chunk is in use while a package of the same compression lists it; for zstd, with the same stored
 * size too (blob-keys.ts: one stored copy per hash and size).
 */
export async function collectPackageBlobs(deps: Deps, payload: ChunkCollectionPayload, signal?: AbortSignal): Promise<{ deletedChunks: number } & PackMaintenance> {
  let chunks: { hash: string; compressedSize: number }[] = [];
  const index = await deps.storage.stat(indexKey(payload.packageId));
  if (index) {
    const bytes = await deps.storage.read(indexKey(payload.packageId));
    chunks = listUniqueChunks(decodeIndex(bytes)).map((chunk) => ({ hash: toHex(chunk.hash), compressedSize: chunk.compressedSize }));
  }
  const { compression } = payload;
  let deletedChunks = 0;
  const touchedPacks = new Set<string>();
  for (let start = 0; start < chunks.length; start += batchSize) {
    // A job whose lease was lost (signal) deletes nothing more: every step is repeatable by the next attempt.
    signal?.throwIfAborted();
    const batch = chunks.slice(start, start + batchSize);
    deletedChunks += await withChunkStoreExclusive(deps, async (tx) => {
      const used = await tx
        .selectDistinct({ hash: packageChunks.hash, compressedSize: packageChunks.compressedSize })
        .from(packageChunks)
        .innerJoin(packages, and(eq(packages.id, packageChunks.packageId), eq(packages.compression, compression)))
        .where(inArray(packageChunks.hash, [...new Set(batch.map((chunk) => chunk.hash))]));
      const usedSet = new Set(used.map((row) => chunkIdentity(compression, row.hash, row.compressedSize)));
      const unused = batch.filter((chunk) => !usedSet.has(chunkIdentity(compression, chunk.hash, chunk.compressedSize)));
      // Deleted while holding the lock, so no finalize can verify a chunk that is about to vanish.
      const rows = await deleteStoredChunkRows(tx, compression, unused);
      for (const id of rows.packIds) touchedPacks.add(id);
      const legacy = unused.filter((chunk) => !rows.identities.has(chunkIdentity(compression, chunk.hash, chunk.compressedSize)));
      await Promise.all(legacy.map((chunk) => deps.storage.delete(chunkKey(compression, chunk.hash, chunk.compressedSize))));
      return unused.length;
    });
  }
  signal?.throwIfAborted();
  const maintenance = await maintainPacks(deps, touchedPacks);
  // Its upload parts, and the index, the ZIP's CRC-32s, the torrent (everything under packages/{id}/):
  // listed first, deleted after (deleting while listing is not portable), the index last of all, as a
  // run that stops half way reads it again.
  const keys: string[] = [];
  for await (const part of deps.storage.list(uploadPrefix(payload.packageId))) keys.push(part.key);
  for await (const blob of deps.storage.list(packagePrefix(payload.packageId))) keys.push(blob.key);
  const last = indexKey(payload.packageId);
  keys.sort((a, b) => Number(a === last) - Number(b === last));
  await withChunkStoreExclusive(deps, async () => {
    for (const key of keys) {
      signal?.throwIfAborted();
      await deps.storage.delete(key);
    }
  });
  await deps.fileCache.forget(payload.packageId);
  return { deletedChunks, ...maintenance };
}
