import { and, eq, inArray } from 'drizzle-orm';
import { decodeIndex, listUniqueChunks, toHex } from '../../../../shared/archive/index.ts';
import { packageChunks, packages } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { chunkIdentity, chunkKey, indexKey, packagePrefix, uploadPrefix } from './blob-keys.ts';
import { lockChunkStoreExclusive } from './chunk-store-lock.ts';

/**
 * Chunk garbage collection. Deleting a package removes its rows at once (package_chunks cascade) and
 * queues a chunk_gc job (chunk-gc.job.ts) that later deletes its index and derived blobs, any upload
 * parts, its files in the local download cache, and each of its chunk blobs no package references any
 * more (package_chunks of every package). Concurrent uploads: see chunk-store-lock.ts.
 */
export type ChunkCollectionPayload = { packageId: string; projectId: string; compression: 0 | 1 };

const batchSize = 500;

/**
 * A chunk blob is in use while a package of the same compression lists the chunk; for zstd, with the
 * same stored size too (blob-keys.ts: one zstd blob per hash and size).
 */
export async function collectPackageBlobs(deps: Deps, payload: ChunkCollectionPayload): Promise<{ deletedChunks: number }> {
  let chunks: { hash: string; compressedSize: number }[] = [];
  const index = await deps.storage.stat(indexKey(payload.packageId));
  if (index) {
    const bytes = await deps.storage.read(indexKey(payload.packageId));
    chunks = listUniqueChunks(decodeIndex(bytes)).map((chunk) => ({ hash: toHex(chunk.hash), compressedSize: chunk.compressedSize }));
  }
  const { compression } = payload;
  let deletedChunks = 0;
  for (let start = 0; start < chunks.length; start += batchSize) {
    const batch = chunks.slice(start, start + batchSize);
    deletedChunks += await deps.db.transaction(async (tx) => {
      await lockChunkStoreExclusive(tx);
      const used = await tx
        .selectDistinct({ hash: packageChunks.hash, compressedSize: packageChunks.compressedSize })
        .from(packageChunks)
        .innerJoin(packages, and(eq(packages.id, packageChunks.packageId), eq(packages.compression, compression)))
        .where(inArray(packageChunks.hash, [...new Set(batch.map((chunk) => chunk.hash))]));
      const usedSet = new Set(used.map((row) => chunkIdentity(compression, row.hash, row.compressedSize)));
      const unused = batch.filter((chunk) => !usedSet.has(chunkIdentity(compression, chunk.hash, chunk.compressedSize)));
      // Deleted while holding the lock, so no finalize can verify a blob that is about to vanish.
      await Promise.all(unused.map((chunk) => deps.storage.delete(chunkKey(compression, chunk.hash, chunk.compressedSize))));
      return unused.length;
    });
  }
  for await (const part of deps.storage.list(uploadPrefix(payload.packageId))) await deps.storage.delete(part.key);
  // The index, the ZIP's CRC-32s, the torrent: everything under packages/{id}/.
  for await (const blob of deps.storage.list(packagePrefix(payload.packageId))) await deps.storage.delete(blob.key);
  await deps.fileCache.forget(payload.packageId);
  return { deletedChunks };
}
