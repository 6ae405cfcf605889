import type { ArchiveIndex } from '../../shared/archive/index.ts';
import type { Deps } from '../deps.ts';
import { readPackageIndex } from '../domains/packages/records/package-content.ts';

/**
 * Decoded indexes of recently played packages. A ready package's index never changes, so this cache
 * is only ever a shortcut (keyed by package and index hash): every process may hold its own copy.
 */
export function createIndexCache(deps: Pick<Deps, 'storage'>, capacity = 16) {
  const entries = new Map<string, Promise<ArchiveIndex>>();
  return {
    get(packageId: string, indexHash: string): Promise<ArchiveIndex> {
      const key = `${packageId}:${indexHash}`;
      let entry = entries.get(key);
      if (entry) {
        // Map order is insertion order: re-inserting makes it the most recently used.
        entries.delete(key);
        entries.set(key, entry);
        return entry;
      }
      entry = readPackageIndex(deps, packageId);
      entries.set(key, entry);
      entry.catch(() => entries.delete(key));
      while (entries.size > capacity) entries.delete(entries.keys().next().value!);
      return entry;
    },
  };
}
