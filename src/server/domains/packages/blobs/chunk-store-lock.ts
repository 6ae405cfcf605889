import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';

/**
 * Concurrent uploads and chunk collection: a finalize or resolve may have found a chunk already stored
 * and skipped writing it. The collectors (chunk_gc, the storage sweep, pack maintenance) check
 * package_chunks and delete chunks (stored_chunks rows, legacy chunk blobs) and pack blobs holding this
 * transaction-scoped advisory lock exclusively; finalize and resolve take it shared in their last
 * transaction, in which they insert their package_chunks rows and verify that every chunk is still
 * stored (a stored_chunks row, or a legacy blob). Either the collector runs first (the finalize then
 * sees a chunk missing and fails retryably: its parts are still there), or the finalize commits first
 * (the collector then sees its rows). Recording a new pack takes it shared too and checks its blob is
 * still there (the sweep deletes old unrecorded ones). A row only ever names a pack whose blob exists:
 * empty packs are deleted under the lock, repacked ones are retired and deleted by the sweep after a
 * grace period. Nothing relies on process memory. `cartridge admin backup` holds it shared
 * (session-level) from its database dump until every blob is copied (commands/backup.ts).
 */
export const chunkStoreLock = 0x43525431;

/** Finalize and resolve: shared for the rest of the transaction. */
export async function lockChunkStoreShared(db: Executor): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock_shared(${chunkStoreLock})`);
}

/** Collectors: exclusive for the rest of the transaction, held while they delete blobs. */
export async function lockChunkStoreExclusive(db: Executor): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(${chunkStoreLock})`);
}
