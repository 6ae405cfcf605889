import { and, eq } from 'drizzle-orm';
import type { CompressionAlgorithm } from '../../../../shared/archive/index.ts';
import { packageChunks, packages, storedChunks } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { chunkIdentity } from '../blob-keys.ts';
import { findStoredChunks, type ChunkId } from './stored-chunks.ts';

/**
 * Where chunks are, for readers (chunk-reader.ts): the pack and offset of a chunk's stored bytes, or
 * undefined for a chunk with no stored_chunks row (a legacy blob of its own, blob-keys.ts).
 */
export type ChunkLocation = { packId: string; offset: number };

export type ChunkLocator = {
  locate(chunk: ChunkId): Promise<ChunkLocation | undefined>;
  /** Forgets what was loaded (a read found a pack gone: its chunks moved); the next locate loads again. */
  refresh(): void;
};

type Located = ChunkLocation & { compressedSize: number };

/**
 * A package's locations are loaded once (one query over its package_chunks) and kept per process for a
 * few minutes: far less than the grace period a repacked pack's blob outlives its retirement by (the
 * storage sweep's hour), so locations read from the cache still name a blob that is there. At most 32
 * packages and 250,000 chunks (≈ 15 GiB of packages, some 40 MB) are kept, the oldest dropped first.
 */
const cacheMs = 5 * 60_000;
const cachedPackages = 32;
const cachedChunks = 250_000;
const cache = new Map<string, { loadedAt: number; locations: Promise<Map<string, Located>>; chunks: number }>();

function trimCache(): void {
  let chunks = 0;
  for (const item of cache.values()) chunks += item.chunks;
  for (const [id, item] of cache) {
    if ((chunks <= cachedChunks && cache.size <= cachedPackages) || cache.size <= 1) return;
    cache.delete(id);
    chunks -= item.chunks;
  }
}

async function loadPackageLocations(deps: Pick<Deps, 'db'>, packageId: string): Promise<Map<string, Located>> {
  const rows = await deps.db
    .select({ hash: packageChunks.hash, compressedSize: packageChunks.compressedSize, packId: storedChunks.packId, offset: storedChunks.offset })
    .from(packageChunks)
    .innerJoin(packages, eq(packages.id, packageChunks.packageId))
    .innerJoin(
      storedChunks,
      and(eq(storedChunks.compression, packages.compression), eq(storedChunks.hash, packageChunks.hash), eq(storedChunks.compressedSize, packageChunks.compressedSize)),
    )
    .where(eq(packageChunks.packageId, packageId));
  // A package lists one stored size per hash (package_chunks' key), so the hash alone names the chunk.
  return new Map(rows.map((row) => [row.hash, { packId: row.packId, offset: row.offset, compressedSize: row.compressedSize }]));
}

function cachedLocations(deps: Pick<Deps, 'db'>, packageId: string): Promise<Map<string, Located>> {
  const now = Date.now();
  const hit = cache.get(packageId);
  if (hit && now - hit.loadedAt < cacheMs) return hit.locations;
  cache.delete(packageId);
  const locations = loadPackageLocations(deps, packageId);
  const item = { loadedAt: now, locations, chunks: 0 };
  cache.set(packageId, item);
  trimCache();
  locations.then(
    (found) => {
      item.chunks = found.size;
      trimCache();
    },
    () => {
      if (cache.get(packageId) === item) cache.delete(packageId);
    },
  );
  return locations;
}

/** The chunks of a ready package (its package_chunks rows list them all). */
export function packageChunkLocator(deps: Pick<Deps, 'db'>, packageId: string): ChunkLocator {
  return {
    async locate(chunk) {
      const found = (await cachedLocations(deps, packageId)).get(chunk.hash);
      return found && found.compressedSize === chunk.compressedSize ? { packId: found.packId, offset: found.offset } : undefined;
    },
    refresh: () => cache.delete(packageId),
  };
}

/** A few known chunks (a file the play origin serves), found with one query when first asked for. */
export function listedChunkLocator(deps: Pick<Deps, 'db'>, compression: CompressionAlgorithm, chunks: readonly ChunkId[]): ChunkLocator {
  let found: ReturnType<typeof findStoredChunks> | undefined;
  return {
    async locate(chunk) {
      found ??= findStoredChunks(deps.db, compression, chunks);
      const row = (await found).get(chunkIdentity(compression, chunk.hash, chunk.compressedSize));
      return row ? { packId: row.packId, offset: row.offset } : undefined;
    },
    refresh: () => {
      found = undefined;
    },
  };
}
