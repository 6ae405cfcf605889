import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { CompressionAlgorithm } from '../../../../shared/archive/index.ts';
import { packs, storedChunks } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { AppError } from '../../../errors.ts';
import { packKey } from '../blob-keys.ts';
import { lockChunkStoreShared } from '../../../storage/chunk-store-lock.ts';
import { rowsOfResult, unnestRows } from '../../../db/sql-rows.ts';

/** A chunk as a pack holds it: its identity, where its stored bytes start, and the CRC-32 of its raw bytes. */
export type PackedChunk = { compression: CompressionAlgorithm; hash: string; compressedSize: number; offset: number; crc32: number };

/** A pack blob written whole: what pack-writer.ts hands to its owner. */
export type SealedPack = { id: string; size: number; chunks: PackedChunk[] };

/** A pack's chunks as a relation c(compression, hash, compressed_size, offset, crc32) (db/sql-rows.ts). */
function packedList(chunks: readonly PackedChunk[]) {
  return unnestRows('c', [
    ['compression', 'smallint', chunks.map((chunk) => chunk.compression)],
    ['hash', 'text', chunks.map((chunk) => chunk.hash)],
    ['compressed_size', 'integer', chunks.map((chunk) => chunk.compressedSize)],
    ['offset', 'bigint', chunks.map((chunk) => chunk.offset)],
    ['crc32', 'integer', chunks.map((chunk) => chunk.crc32 | 0)],
  ]);
}

/**
 * Records a new pack whose blob is complete: its packs row and a stored_chunks row per chunk, in one
 * transaction. A chunk another writer stored meanwhile keeps its row (its copy here is dead bytes, for
 * the collector's repack); a pack left with no row at all is dropped at once. Under the chunk-store lock
 * (shared) the blob must still be there: the storage sweep deletes old pack blobs without a row, holding
 * the lock exclusively (a record delayed past its grace fails retryably instead of naming a lost blob).
 */
export async function recordNewPack(deps: Pick<Deps, 'db' | 'storage'>, pack: SealedPack): Promise<void> {
  const kept = await deps.db.transaction(async (tx) => {
    await lockChunkStoreShared(tx);
    if (!(await deps.storage.stat(packKey(pack.id)))) throw new AppError('unexpected_error', 'A pack was collected before it was recorded: try again');
    await tx.insert(packs).values({ id: pack.id, size: pack.size });
    const inserted = rowsOfResult(
      await tx.execute(sql`insert into stored_chunks (compression, hash, compressed_size, pack_id, "offset", crc32)
        select c.compression, c.hash, c.compressed_size, ${pack.id}, c."offset", c.crc32 from ${packedList(pack.chunks)}
        on conflict do nothing returning hash`),
    ).length;
    if (inserted === 0) await tx.delete(packs).where(eq(packs.id, pack.id));
    return inserted > 0;
  });
  // Named by no row: nobody reads it.
  if (!kept) await deps.storage.delete(packKey(pack.id));
}

/**
 * A repack's copy is complete: the rows of the chunks it copied move to it, each from the pack it was
 * copied from (`sourceOf`; a row deleted or moved meanwhile stays as it is: its copy is dead bytes), and
 * each source pack nothing points at any more is retired (its blob stays for the storage sweep's grace
 * period: downloads under way may hold its locations). No lock: rows only move, and a finalize's check
 * that a chunk has a row holds either way. A copy that moved nothing is dropped (the caller deletes its blob).
 */
export async function recordRepack(deps: Pick<Deps, 'db'>, copy: SealedPack, sourceOf: (chunk: PackedChunk) => string): Promise<{ moved: number; retired: string[] }> {
  return deps.db.transaction(async (tx) => {
    await tx.insert(packs).values({ id: copy.id, size: copy.size });
    const moves = unnestRows('moved', [
      ['compression', 'smallint', copy.chunks.map((chunk) => chunk.compression)],
      ['hash', 'text', copy.chunks.map((chunk) => chunk.hash)],
      ['compressed_size', 'integer', copy.chunks.map((chunk) => chunk.compressedSize)],
      ['new_offset', 'bigint', copy.chunks.map((chunk) => chunk.offset)],
      ['from_pack', 'text', copy.chunks.map(sourceOf)],
    ]);
    const moved = rowsOfResult(
      await tx.execute(sql`update stored_chunks set pack_id = ${copy.id}, "offset" = moved.new_offset from ${moves}
        where stored_chunks.compression = moved.compression and stored_chunks.hash = moved.hash
          and stored_chunks.compressed_size = moved.compressed_size and stored_chunks.pack_id = moved.from_pack
        returning stored_chunks.hash`),
    ).length;
    const sources = [...new Set(copy.chunks.map(sourceOf))];
    const left = await tx.select({ packId: storedChunks.packId }).from(storedChunks).where(inArray(storedChunks.packId, sources)).groupBy(storedChunks.packId);
    const busy = new Set(left.map((row) => row.packId));
    const retired = sources.filter((id) => !busy.has(id));
    if (retired.length > 0) await tx.update(packs).set({ retiredAt: new Date() }).where(and(inArray(packs.id, retired), isNull(packs.retiredAt)));
    if (moved === 0) await tx.delete(packs).where(eq(packs.id, copy.id));
    return { moved, retired };
  });
}
