import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { openDatabase } from '../../src/server/db/client.ts';
import { loadMigrations, migrateDatabase } from '../../src/server/db/migrate.ts';

let template: Promise<Blob> | undefined;

/**
 * A migrated PGlite data dump, built once and cached on disk by migration hash: PGlite's first
 * init costs seconds, a clone from the dump a fraction of one.
 */
export function pgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    const migrations = loadMigrations();
    const key = new Bun.CryptoHasher('sha256').update(migrations.map((m) => m.hash).join(',')).digest('hex').slice(0, 16);
    const folder = join(tmpdir(), 'cartridge-test-templates');
    const path = join(folder, `pglite-${Bun.version}-${key}.tar.gz`);
    if (existsSync(path)) return new Blob([readFileSync(path)]);
    const handle = await openDatabase({});
    await migrateDatabase(handle, migrations);
    const dump = await (handle.db as unknown as { $client: { dumpDataDir(c: 'gzip'): Promise<Blob> } }).$client.dumpDataDir('gzip');
    await handle.close();
    mkdirSync(folder, { recursive: true });
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()));
    renameSync(partial, path);
    return dump;
  })();
  return template;
}

export type TestDatabase = { url: string | undefined; drop(): Promise<void> };

/** With DATABASE_URL: a fresh database on that server per call (dropped afterwards); else PGlite. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return { url: undefined, drop: async () => {} };
  const name = `cartridge_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const cleanup = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
      await cleanup.end();
    },
  };
}
