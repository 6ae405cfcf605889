import type { BlobStore } from './blob-store.ts';
import type { FileCache } from './file-cache.ts';
import { isOutOfStorage } from './out-of-storage.ts';

/**
 * The blob store with the download cache giving way to it (STORAGE_FREE_FLOOR): before each write,
 * and again when one is refused for space, the cache drops files while its disk's free space is under
 * the floor, so blobs (and the database beside them) get the room derived downloads took.
 */
export function withCacheGivingWay(storage: BlobStore, cache: Pick<FileCache, 'giveWay'>): BlobStore {
  // The cache is an optimisation: a failure to look at its disk never fails a write.
  const giveWay = () => cache.giveWay().catch(() => undefined);
  return {
    ...storage,
    async put(key, body, options) {
      await giveWay();
      try {
        return await storage.put(key, body, options);
      } catch (error) {
        if (isOutOfStorage(error)) await giveWay();
        throw error;
      }
    },
  };
}
