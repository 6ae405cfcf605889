import { and, asc, eq, inArray, isNull, notExists, sql } from 'drizzle-orm';
import type { CompressionAlgorithm } from '../../../../shared/archive/index.ts';
import { packs, storedChunks } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { packKey } from '../blob-keys.ts';
import { withChunkStoreExclusive } from '../../../storage/chunk-store-lock.ts';
import { PackCursor } from './pack-cursor.ts';
import { recordRepack, type PackedChunk } from './pack-rows.ts';
import { createPackWriter } from './pack-writer.ts';

/**
 * Keeps packs worth their bytes once collectors deleted chunk rows (chunk-gc.service.ts, the storage
 * sweep), for the packs they name:
 * - a pack no row points at is deleted, its row then its blob, holding the chunk-store lock exclusively
 *   like every collector deletion (a backup holding it shared never misses a blob its dump names);
 * - a pack whose live chunks fill less than half of it is repacked: the live chunks of every such pack
 *   of the run are copied into new packs (written whole first), then their rows move (recordRepack) and
 *   the old packs are retired; the storage sweep deletes retired packs after its grace period.
 * Retired packs are left alone.
 */
export type PackMaintenance = { deletedPacks: number; repackedPacks: number };

const batchSize = 1000;
/** Dead bytes a repack's read skips over rather than starting another ranged read. */
const maxSkip = 1024 * 1024;

type PackState = { id: string; size: number; liveCount: number; liveBytes: number };

async function statesOf(deps: Pick<Deps, 'db'>, ids: string[]): Promise<PackState[]> {
  const states: PackState[] = [];
  for (let start = 0; start < ids.length; start += batchSize) {
    const batch = ids.slice(start, start + batchSize);
    const rows = await deps.db
      .select({
        id: packs.id,
        size: packs.size,
        liveCount: sql<number>`(select count(*) from ${storedChunks} where ${storedChunks.packId} = ${packs.id})::int`,
        liveBytes: sql<number>`(select coalesce(sum(${storedChunks.compressedSize}), 0) from ${storedChunks} where ${storedChunks.packId} = ${packs.id})::float8`,
      })
      .from(packs)
      .where(and(inArray(packs.id, batch), isNull(packs.retiredAt)));
    states.push(...rows.map((row) => ({ ...row, liveCount: Number(row.liveCount), liveBytes: Number(row.liveBytes) })));
  }
  return states;
}

/** Deletes the packs of `ids` still without rows (checked again under the lock). */
async function deleteEmptyPacks(deps: Pick<Deps, 'db' | 'storage'>, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  return withChunkStoreExclusive(deps, async (tx) => {
    const deleted = await tx
      .delete(packs)
      .where(and(inArray(packs.id, ids), isNull(packs.retiredAt), notExists(tx.select({ one: sql`1` }).from(storedChunks).where(eq(storedChunks.packId, packs.id)))))
      .returning({ id: packs.id });
    for (const pack of deleted) await deps.storage.delete(packKey(pack.id));
    return deleted.length;
  });
}

/** Copies the live chunks of `sources` into new packs and moves their rows there. */
async function repack(deps: Pick<Deps, 'db' | 'storage' | 'config'>, sources: PackState[]): Promise<void> {
  const sourceOf = new Map<string, string>();
  const keyOf = (chunk: Pick<PackedChunk, 'compression' | 'hash' | 'compressedSize'>) => `${chunk.compression}:${chunk.hash}:${chunk.compressedSize}`;
  const writer = createPackWriter({
    storage: deps.storage,
    packSize: deps.config.packs.size,
    onSealed: async (copy) => {
      const { moved } = await recordRepack(deps, copy, (chunk) => sourceOf.get(keyOf(chunk))!);
      if (moved === 0) await deps.storage.delete(packKey(copy.id));
    },
  });
  try {
    for (const source of sources) {
      const rows = await deps.db
        .select({ compression: storedChunks.compression, hash: storedChunks.hash, compressedSize: storedChunks.compressedSize, offset: storedChunks.offset, crc32: storedChunks.crc32 })
        .from(storedChunks)
        .where(eq(storedChunks.packId, source.id))
        .orderBy(asc(storedChunks.offset));
      let cursor: PackCursor | undefined;
      try {
        for (const row of rows) {
          if (!cursor?.canRead(row.offset, row.compressedSize, maxSkip)) {
            cursor?.close();
            cursor = new PackCursor(deps.storage, source.id, row.offset, source.size);
          }
          const bytes = await cursor.read(row.offset, row.compressedSize);
          const chunk = { compression: row.compression as CompressionAlgorithm, hash: row.hash, compressedSize: row.compressedSize, crc32: row.crc32 >>> 0 };
          sourceOf.set(keyOf(chunk), source.id);
          await writer.append(bytes, chunk);
        }
      } finally {
        cursor?.close();
      }
    }
    await writer.finish();
  } catch (error) {
    await writer.abort(error);
    throw error;
  }
}

export async function maintainPacks(deps: Pick<Deps, 'db' | 'storage' | 'config'>, packIds: Iterable<string>): Promise<PackMaintenance> {
  const states = await statesOf(deps, [...new Set(packIds)]);
  const deletedPacks = await deleteEmptyPacks(
    deps,
    states.filter((pack) => pack.liveCount === 0).map((pack) => pack.id),
  );
  const sparse = states.filter((pack) => pack.liveCount > 0 && pack.liveBytes < pack.size / 2);
  if (sparse.length > 0) await repack(deps, sparse);
  return { deletedPacks, repackedPacks: sparse.length };
}
