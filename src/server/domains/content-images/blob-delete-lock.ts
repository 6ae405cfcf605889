import type { Deps } from '../../deps.ts';
import { ChunkStoreBusy, withChunkStoreExclusive } from '../../storage/chunk-store-lock.ts';

/**
 * Image blobs a database row named (the collector's, the sweep's, a finalize or re-encode that lost its
 * row) are deleted holding the chunk-store lock exclusively, like the package collectors, so a backup
 * never misses a blob its dump names (chunk-store-lock.ts). When a backup holds it for `waitMs`, `fn`
 * does not run and undefined is returned; the blobs, then without a row, are the storage sweep's
 * (sweepContentImageStorage) at a later run.
 */
export async function withImageBlobDeleteLock<T>(deps: Pick<Deps, 'db'>, fn: () => Promise<T>, waitMs?: number): Promise<T | undefined> {
  try {
    return await withChunkStoreExclusive(deps, fn, waitMs);
  } catch (error) {
    if (error instanceof ChunkStoreBusy) return undefined;
    throw error;
  }
}
