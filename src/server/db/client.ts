import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import * as schema from './schema/index.ts';
import { loadPgliteAssets } from './pglite-assets.ts';
import { lockDataFolder, type DataFolderLock } from './data-folder-lock.ts';

type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction handle: it has the same query API as the database. */
export type Executor = Pick<Database, 'select' | 'insert' | 'update' | 'delete' | 'execute' | 'transaction'>;

export type DatabaseHandle = {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** Runs fn while holding a PostgreSQL advisory lock (PGlite has one connection: no lock needed). */
  withAdvisoryLock<T>(lockId: number, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
};

export type DatabaseOptions = {
  /** postgres:// URL; absent → embedded PGlite. */
  url?: string;
  /** PGlite data folder, held locked while open (data-folder-lock.ts); absent → in memory. */
  pgliteDir?: string;
  /** pgliteDir's lock, already held by the caller (a backup holds it longer): not taken again nor released here. */
  heldLock?: DataFolderLock;
  /** A PGlite data dump to start from (tests clone a migrated template this way). */
  pgliteTemplate?: Blob;
};

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.url) {
    const client = postgres(options.url, { max: 10, onnotice: () => {}, connection: { application_name: 'cartridge' } });
    const db = drizzlePostgres({ client, schema, casing: 'snake_case' }) as unknown as Database;
    const withAdvisoryLock = async <T>(lockId: number, fn: () => Promise<T>): Promise<T> => {
      const connection = await client.reserve();
      try {
        await connection`select pg_advisory_lock(${lockId})`;
        return await fn();
      } finally {
        await connection`select pg_advisory_unlock(${lockId})`.catch(() => {});
        connection.release();
      }
    };
    return { db, kind: 'postgres', withAdvisoryLock, close: () => client.end({ timeout: 5 }) };
  }
  // Before anything in the folder is touched: a second process refuses here (DataFolderInUseError).
  const lock = options.pgliteDir && !options.heldLock ? lockDataFolder(options.pgliteDir) : undefined;
  let client: PGlite;
  try {
    if (options.pgliteDir) mkdirSync(options.pgliteDir, { recursive: true });
    client = await PGlite.create({
      ...(await loadPgliteAssets()),
      dataDir: options.pgliteDir,
      loadDataDir: options.pgliteTemplate,
      relaxedDurability: false,
    });
  } catch (error) {
    lock?.release();
    throw error;
  }
  const db = drizzlePglite({ client, schema, casing: 'snake_case' }) as unknown as Database;
  return {
    db,
    kind: 'pglite',
    withAdvisoryLock: (_lockId, fn) => fn(),
    close: async () => {
      try {
        if (!client.closed) await client.close();
      } finally {
        lock?.release();
      }
    },
  };
}

export function pgliteDirOf(dataDir: string): string {
  return join(dataDir, 'db');
}
