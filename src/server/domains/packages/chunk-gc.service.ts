import { inArray, sql } from 'drizzle-orm';
import { decodeIndex, listUniqueChunks, toHex } from '../../../shared/archive/index.ts';
import type { Executor } from '../../db/client.ts';
import { packageChunks } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { chunkKey, indexKey, uploadPrefix } from './blob-keys.ts';

/**
 * Chunk garbage collection. Deleting a package removes its rows at once (package_chunks cascade) and
 * queues a chunk_gc job that later deletes its index, any upload parts, and each of its chunk blobs no
 * package references any more (package_chunks of every package).
 *
 * Concurrent uploads: a finalize or resolve may have found a chunk already stored and skipped writing
 * it. The job checks package_chunks and deletes blobs holding an exclusive transaction-scoped advisory
 * lock; finalize and resolve take the same lock shared in their last transaction, in which they insert
 * their package_chunks rows and verify that every chunk blob still exists. Either the collector runs
 * first (the finalize then sees a blob missing and fails retryably: its parts are still there), or the finalize commits
 * first (the collector then sees its rows). Nothing relies on process memory.
 */
export const chunkStoreLock = 0x43525431;

export type ChunkCollectionPayload = { packageId: string; projectId: string; compression: 0 | 1 };

export async function enqueueChunkCollection(db: Executor, payload: ChunkCollectionPayload): Promise<void> {
  await enqueueJob(db, { kind: 'chunk_gc', payload, dedupeKey: `package:${payload.packageId}` });
}

/** Takes the chunk store lock shared for the rest of the transaction (finalize, resolve). */
export async function lockChunkStoreShared(db: Executor): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock_shared(${chunkStoreLock})`);
}

const batchSize = 500;

export async function collectPackageBlobs(deps: Deps, payload: ChunkCollectionPayload): Promise<{ deletedChunks: number }> {
  let hashes: string[] = [];
  const index = await deps.storage.stat(indexKey(payload.packageId));
  if (index) {
    const bytes = new Uint8Array(await new Response(await deps.storage.get(indexKey(payload.packageId))).arrayBuffer());
    hashes = listUniqueChunks(decodeIndex(bytes)).map((chunk) => toHex(chunk.hash));
  }
  let deletedChunks = 0;
  for (let start = 0; start < hashes.length; start += batchSize) {
    const batch = hashes.slice(start, start + batchSize);
    deletedChunks += await deps.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${chunkStoreLock})`);
      const used = await tx.selectDistinct({ hash: packageChunks.hash }).from(packageChunks).where(inArray(packageChunks.hash, batch));
      const usedSet = new Set(used.map((row) => row.hash));
      const unused = batch.filter((hash) => !usedSet.has(hash));
      // Deleted while holding the lock, so no finalize can verify a blob that is about to vanish.
      await Promise.all(unused.map((hash) => deps.storage.delete(chunkKey(payload.compression, hash))));
      return unused.length;
    });
  }
  for await (const part of deps.storage.list(uploadPrefix(payload.packageId))) await deps.storage.delete(part.key);
  await deps.storage.delete(indexKey(payload.packageId));
  return { deletedChunks };
}
