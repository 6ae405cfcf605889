import type { ArchiveIndex } from './types.ts';

/**
 * Pass 1 must compress every chunk to learn its stored size; keeping the first 64 MiB of compressed
 * chunks spares pass 2 compressing them again (the dominant cost of packing with zstd). Weakly held by
 * the index, so an index the caller drops frees its cache.
 */
const COMPRESSED_CACHE_BUDGET = 64 * 1024 * 1024;

export type CompressedCache = { chunks: Map<string, Uint8Array>; bytes: number };

const caches = new WeakMap<ArchiveIndex, CompressedCache>();

export function createCompressedCache(index: ArchiveIndex): CompressedCache {
  const cache = { chunks: new Map<string, Uint8Array>(), bytes: 0 };
  caches.set(index, cache);
  return cache;
}

export function rememberCompressed(cache: CompressedCache, key: string, compressed: Uint8Array): void {
  if (cache.bytes + compressed.length > COMPRESSED_CACHE_BUDGET || cache.chunks.has(key)) return;
  cache.chunks.set(key, compressed);
  cache.bytes += compressed.length;
}

/** Hands out a cached chunk once: after pass 2 used it, nothing needs it any more. */
export function takeCompressed(index: ArchiveIndex, key: string): Uint8Array | undefined {
  const cache = caches.get(index);
  const compressed = cache?.chunks.get(key);
  if (cache !== undefined && compressed !== undefined) {
    cache.chunks.delete(key);
    cache.bytes -= compressed.length;
  }
  return compressed;
}
