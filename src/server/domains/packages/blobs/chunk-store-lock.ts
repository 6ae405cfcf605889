import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';

/**
 * Concurrent uploads and chunk collection: a finalize or resolve may have found a chunk already stored
 * and skipped writing it. The collectors (chunk_gc, the storage sweep) check package_chunks and delete
 * blobs holding this transaction-scoped advisory lock exclusively; finalize and resolve take it shared
 * in their last transaction, in which they insert their package_chunks rows and verify that every chunk
 * blob still exists. Either the collector runs first (the finalize then sees a blob missing and fails
 * retryably: its parts are still there), or the finalize commits first (the collector then sees its
 * rows). Nothing relies on process memory. `cartridge admin backup` holds it shared (session-level) from
 * its database dump until every blob is copied (commands/backup.ts).
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
