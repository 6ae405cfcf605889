import { and, inArray, isNotNull, lt, notExists, sql } from 'drizzle-orm';
import { packs, storedChunks } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { packKey, packPrefix } from '../blob-keys.ts';
import { withChunkStoreExclusive } from '../../../storage/chunk-store-lock.ts';
import { maintainPacks } from './pack-maintenance.ts';
import { rowsOfResult, unnestRows } from '../../../db/sql-rows.ts';

/**
 * The storage sweep's part for packs (storage-sweep.service.ts), everything older than `before`:
 * - stored_chunks rows no package lists: a finalize that died after recording packs and before its
 *   commit (its repeat finds them, within the grace period), or a collector that died half-way;
 * - then packs that are empty or mostly dead (pack-maintenance.ts: deleted or repacked), whatever left them so;
 * - retired packs (a repack moved their chunks): row and blob;
 * - pack blobs without a row: a finalize or repack that died after writing one and before recording it.
 * Deletions hold the chunk-store lock exclusively (chunk-store-lock.ts).
 */
export type PackSweepResult = { storedChunks: number; emptyPacks: number; repackedPacks: number; retiredPacks: number; packBlobs: number };

const batchSize = 500;

/** Unlisted rows, a batch at a time in key order (rows found used meanwhile are passed, not retried). */
async function sweepUnlistedChunkRows(deps: Pick<Deps, 'db'>, before: Date): Promise<{ deleted: number; packIds: Set<string> }> {
  const packIds = new Set<string>();
  let deleted = 0;
  let after: { compression: number; hash: string; compressedSize: number } | undefined;
  const unlisted = sql`not exists (select 1 from package_chunks pc join packages p on p.id = pc.package_id
    where pc.hash = stored_chunks.hash and pc.compressed_size = stored_chunks.compressed_size and p.compression = stored_chunks.compression)`;
  for (;;) {
    const from = after ? sql`and (compression, hash, compressed_size) > (${after.compression}::smallint, ${after.hash}::text, ${after.compressedSize}::integer)` : sql``;
    const candidates = rowsOfResult<{ compression: number; hash: string; compressed_size: number }>(
      await deps.db.execute(sql`select compression, hash, compressed_size from stored_chunks
        where created_at < ${before.toISOString()}::timestamptz and ${unlisted} ${from}
        order by compression, hash, compressed_size limit ${batchSize}`),
    );
    if (candidates.length === 0) break;
    const last = candidates[candidates.length - 1]!;
    after = { compression: Number(last.compression), hash: last.hash, compressedSize: Number(last.compressed_size) };
    const list = unnestRows('c', [
      ['compression', 'smallint', candidates.map((row) => row.compression)],
      ['hash', 'text', candidates.map((row) => row.hash)],
      ['compressed_size', 'integer', candidates.map((row) => row.compressed_size)],
    ]);
    const gone = await withChunkStoreExclusive(deps, async (tx) => {
      return rowsOfResult<{ pack_id: string }>(
        await tx.execute(sql`delete from stored_chunks using ${list}
          where stored_chunks.compression = c.compression and stored_chunks.hash = c.hash and stored_chunks.compressed_size = c.compressed_size
            and created_at < ${before.toISOString()}::timestamptz and ${unlisted} returning pack_id`),
      );
    });
    deleted += gone.length;
    for (const row of gone) packIds.add(row.pack_id);
  }
  return { deleted, packIds };
}

/** Packs (not retired, old enough) whose live chunks fill less than half of them, none included. */
async function sparsePacks(deps: Pick<Deps, 'db'>, before: Date): Promise<string[]> {
  const rows = rowsOfResult<{ id: string }>(
    await deps.db.execute(sql`select p.id from packs p
      left join (select pack_id, sum(compressed_size) as live from stored_chunks group by pack_id) s on s.pack_id = p.id
      where p.retired_at is null and p.created_at < ${before.toISOString()}::timestamptz and coalesce(s.live, 0) < p.size / 2.0`),
  );
  return rows.map((row) => row.id);
}

async function deleteRetiredPacks(deps: Pick<Deps, 'db' | 'storage'>, before: Date): Promise<number> {
  let deleted = 0;
  for (;;) {
    const gone = await withChunkStoreExclusive(deps, async (tx) => {
      const due = await tx
        .select({ id: packs.id })
        .from(packs)
        .where(and(isNotNull(packs.retiredAt), lt(packs.retiredAt, before), notExists(tx.select({ one: sql`1` }).from(storedChunks).where(sql`${storedChunks.packId} = ${packs.id}`))))
        .limit(batchSize);
      if (due.length === 0) return 0;
      await tx.delete(packs).where(inArray(packs.id, due.map((pack) => pack.id)));
      for (const pack of due) await deps.storage.delete(packKey(pack.id));
      return due.length;
    });
    deleted += gone;
    if (gone < batchSize) return deleted;
  }
}

/** Pack blobs with no packs row, changed before `before` (listed first, deleted after: listing while deleting is not portable). */
async function deleteUnrecordedPackBlobs(deps: Pick<Deps, 'db' | 'storage'>, before: Date): Promise<number> {
  const ids: string[] = [];
  for await (const item of deps.storage.list(packPrefix)) ids.push(item.key.slice(packPrefix.length));
  let deleted = 0;
  for (let start = 0; start < ids.length; start += batchSize) {
    const batch = ids.slice(start, start + batchSize);
    deleted += await withChunkStoreExclusive(deps, async (tx) => {
      const known = new Set((await tx.select({ id: packs.id }).from(packs).where(inArray(packs.id, batch))).map((pack) => pack.id));
      let count = 0;
      for (const id of batch) {
        if (known.has(id)) continue;
        const stat = await deps.storage.stat(packKey(id));
        if (!stat || stat.modified.getTime() >= before.getTime()) continue;
        await deps.storage.delete(packKey(id));
        count++;
      }
      return count;
    });
  }
  return deleted;
}

export async function sweepPacks(deps: Pick<Deps, 'db' | 'storage' | 'config'>, beforeMs: number): Promise<PackSweepResult> {
  const before = new Date(beforeMs);
  const rows = await sweepUnlistedChunkRows(deps, before);
  const maintenance = await maintainPacks(deps, [...rows.packIds, ...(await sparsePacks(deps, before))]);
  const retiredPacks = await deleteRetiredPacks(deps, before);
  const packBlobs = await deleteUnrecordedPackBlobs(deps, before);
  return { storedChunks: rows.deleted, emptyPacks: maintenance.deletedPacks, repackedPacks: maintenance.repackedPacks, retiredPacks, packBlobs };
}
