import { sql } from 'drizzle-orm';
import type { Deps } from '../../deps.ts';
import { chunkStoreLock } from '../packages/blobs/chunk-store-lock.ts';

/**
 * Image blobs a database row named (the collector's, the sweep's, a finalize or re-encode that lost its
 * row) are deleted holding the chunk-store lock exclusively, like the package collectors: a PostgreSQL
 * backup (`cartridge admin backup`) holds it shared from before its dump until its last blob is copied,
 * so it never misses a blob its dump names. The lock is tried, not waited for: PostgreSQL grants locks
 * in the order asked, so a deleter queued behind a backup of hours would hold up every upload finalize
 * queued behind it. When it stays taken for `waitMs`, `fn` does not run and undefined is returned; the
 * blobs, then without a row, are the storage sweep's (sweepContentImageStorage) at a later run.
 */
export async function withImageBlobDeleteLock<T>(deps: Pick<Deps, 'db'>, fn: () => Promise<T>, waitMs = 2000): Promise<T | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const outcome = await deps.db.transaction(async (tx) => {
      const result = await tx.execute(sql`select pg_try_advisory_xact_lock(${chunkStoreLock}) as locked`);
      // postgres.js answers a list of rows, PGlite an object holding them.
      const rows = (Array.isArray(result) ? result : (result as unknown as { rows: unknown[] }).rows) as { locked: boolean }[];
      if (!rows[0]?.locked) return { locked: false as const };
      return { locked: true as const, value: await fn() };
    });
    if (outcome.locked) return outcome.value;
    if (Date.now() >= deadline) return undefined;
    await Bun.sleep(100);
  }
}
