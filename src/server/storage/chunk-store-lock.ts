import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/client.ts';
import { rowsOfResult } from '../db/sql-rows.ts';

/**
 * Concurrent uploads and chunk collection: a finalize or resolve may have found a chunk already stored
 * and skipped writing it. The collectors (chunk_gc, the storage sweep, pack maintenance) check
 * package_chunks and delete chunks (stored_chunks rows, legacy chunk blobs), pack blobs and a deleted
 * package's own blobs (packages/{id}/, uploads/{id}/) holding this transaction-scoped advisory lock
 * exclusively; finalize and resolve take it shared in their last transaction, in which they insert
 * their package_chunks rows and verify that every chunk is still stored (a stored_chunks row, or a
 * legacy blob). Either the collector runs first (the finalize then sees a chunk missing and fails
 * retryably: its parts are still there), or the finalize commits first (the collector then sees its
 * rows). Recording a new pack takes it shared too and checks its blob is still there (the sweep deletes
 * old unrecorded ones). A row only ever names a pack whose blob exists: empty packs are deleted under
 * the lock, repacked ones are retired and deleted by the sweep after a grace period. Nothing relies on
 * process memory. `cartridge admin backup` holds it shared (session-level) from its database dump until
 * every blob is copied (commands/backup.ts), so no blob its dump names is deleted meanwhile. Content
 * images delete their blobs under it too (content-images/blob-delete-lock.ts): it guards the whole blob
 * store, so it lives beside it rather than in a domain.
 */
export const chunkStoreLock = 0x43525431;

/** Finalize and resolve: shared for the rest of the transaction. */
export async function lockChunkStoreShared(db: Executor): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock_shared(${chunkStoreLock})`);
}

/** The chunk-store lock stayed taken (a backup holds it) for as long as a deleter was willing to wait. */
export class ChunkStoreBusy extends Error {
  override name = 'ChunkStoreBusy';
  constructor() {
    super('a backup holds the chunk store: deletions are left for later');
  }
}

/** How long a deleter tries: finalizes hold the lock shared for a moment; a backup, for minutes or hours. */
const defaultWaitMs = 2000;

type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];
const retryEveryMs = 100;

/**
 * Runs `fn` in a transaction holding the lock exclusively: every deleter of stored blobs goes through
 * here. The lock is tried, not waited for: PostgreSQL grants locks in the order asked, so a deleter
 * queued behind a backup would hold up every finalize asked after it until the backup ends. Throws
 * ChunkStoreBusy when it stayed taken for `waitMs`; the caller leaves its deletions to a later run.
 */
export async function withChunkStoreExclusive<T>(deps: { db: Database }, fn: (tx: Transaction) => Promise<T>, waitMs = defaultWaitMs): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const outcome = await deps.db.transaction(async (tx) => {
      const [row] = rowsOfResult<{ locked: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(${chunkStoreLock}) as locked`));
      if (!row?.locked) return { locked: false as const };
      return { locked: true as const, value: await fn(tx) };
    });
    if (outcome.locked) return outcome.value;
    if (Date.now() >= deadline) throw new ChunkStoreBusy();
    await Bun.sleep(retryEveryMs);
  }
}
