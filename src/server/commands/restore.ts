import { existsSync, readdirSync, statSync } from 'node:fs';
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { formatSize } from '../../shared/format/size.ts';
import type { Config } from '../config.ts';
import { openDatabase, pgliteDirOf, type DatabaseHandle } from '../db/client.ts';
import { lockDataFolder } from '../db/data-folder-lock.ts';
import { loadMigrations, migrateDatabase } from '../db/migrate.ts';
import type { BlobStore } from '../storage/index.ts';
import type { CommandOutput } from './admin.ts';
import { blobsAtOnce, describeStore, fileStoreRoot, readBlobList, restoreBlob, storeIsEmpty } from './backup-blobs.ts';
import { loadCommandConfig, openCommandStore } from './backup.ts';
import {
  appliedMigrationsQuery,
  backupFormat,
  backupFormatVersion,
  BackupRefusal,
  blobListFile,
  blobsFolder,
  counted,
  hashFile,
  manifestFile,
  manifestSchema,
  migrationRows,
  secretKeyFile,
  type BackupManifest,
} from './backup-format.ts';
import { secretKeyId } from '../crypto/index.ts';
import { findPostgresTool, postgresTarget, runPostgresTool, withoutPassword, type PostgresTarget, type PostgresTool } from './postgres-tools.ts';
import { eachLimited } from '../../shared/limiter.ts';

type Target = {
  config: Config;
  store: BlobStore;
  storeLabel: string;
  /** PostgreSQL: where and with what; undefined for the embedded database. */
  postgres: { target: PostgresTarget; pgRestore: PostgresTool } | undefined;
  pgliteDir: string;
  secretKeyFromEnvironment: string | undefined;
};

/**
 * `cartridge admin restore DIR [--force]`: checks the backup (manifest, checksums of the dump and of the
 * blob list, every listed blob present), checks the target is empty (database, blob store, secret key;
 * --force replaces what is there), then writes every blob into the store named by STORAGE_URL (each
 * verified against its SHA-256 while it is written), loads the database, runs the migrations of this
 * version, and puts the secret key back in DATA_DIR.
 */
export async function runRestore(dirArgument: string, options: { force: boolean }, out: CommandOutput): Promise<void> {
  const started = performance.now();
  const dir = resolve(dirArgument);
  const progress = (line: string) => out.stdout(`${line}\n`);
  const manifest = await readManifest(dir);
  const { config, secretKeyFromEnvironment } = loadCommandConfig();
  const kind = config.databaseUrl ? 'postgres' : 'pglite';
  if (manifest.database.kind !== kind) {
    throw new BackupRefusal(
      manifest.database.kind === 'pglite'
        ? 'This backup holds an embedded (PGlite) database: restore it without DATABASE_URL, into DATA_DIR.'
        : 'This backup holds a PostgreSQL database: restore it with DATABASE_URL naming an empty PostgreSQL database.',
    );
  }
  checkMigrations(manifest);
  await checkBackupFiles(dir, manifest, progress);

  const storeRoot = fileStoreRoot(config.storageUrl, config.dataDir);
  if (storeRoot && (dir === storeRoot || dir.startsWith(storeRoot + sep))) throw new BackupRefusal(`${dir} is inside the target blob store (${storeRoot}).`);
  // Held until the restore ends, so no server opens the database being replaced.
  const lock = config.databaseUrl ? undefined : lockDataFolder(pgliteDirOf(config.dataDir));
  const store = openCommandStore(config);
  try {
    const target: Target = {
      config,
      store,
      storeLabel: describeStore(config.storageUrl, config.dataDir),
      postgres: config.databaseUrl ? { target: postgresTarget(config.databaseUrl), pgRestore: findPostgresTool('pg_restore') } : undefined,
      pgliteDir: pgliteDirOf(config.dataDir),
      secretKeyFromEnvironment,
    };
    await checkTarget(target, manifest, options.force);
    out.stdout(`Restoring ${dir} (made ${manifest.createdAt})\n`);
    try {
      progress(`Blobs into ${target.storeLabel}:`);
      let bytes = 0;
      await eachLimited(readBlobList(dir), blobsAtOnce, async (entry) => {
        bytes += await restoreBlob(store, dir, entry);
      });
      progress(`  ${counted(manifest.blobs.count, 'blob')}, ${formatSize(bytes)}, each matching its SHA-256`);
      const applied = target.postgres ? await restorePostgres(dir, manifest, target.postgres, config.databaseUrl!, options.force) : await restorePglite(dir, manifest, target.pgliteDir);
      progress(`Database: ${manifest.database.file} loaded; ${describeMigrations(manifest.migrations.count, applied)}`);
    } catch (error) {
      if (error instanceof Error) error.message = `${error.message.replace(/\.$/, '')}. The restore stopped half-way: the target holds part of the backup; once the cause is fixed, run the restore again with --force.`;
      throw error;
    }
    await restoreSecretKey(dir, manifest, target, progress);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    out.stdout(`Restore complete in ${seconds} s: start the server.\n`);
  } finally {
    await store.close?.();
    lock?.release();
  }
}

function describeMigrations(inBackup: number, now: number): string {
  const applied = now - inBackup;
  return `${counted(inBackup, 'migration')} in the backup, ${applied === 0 ? 'none to apply' : `${applied} applied now`}.`;
}

async function readManifest(dir: string): Promise<BackupManifest> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new BackupRefusal(`${dir} is not a folder.`);
  const path = join(dir, manifestFile);
  if (!existsSync(path)) {
    throw new BackupRefusal(`${dir} has no ${manifestFile}: it is not a backup, or its backup did not finish (the manifest is written last).`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    throw new BackupRefusal(`${path} is not JSON: the backup is damaged.`);
  }
  const head = raw as { format?: unknown; version?: unknown } | null;
  if (head?.format !== backupFormat) throw new BackupRefusal(`${path} is not the manifest of a Cartridge backup.`);
  if (typeof head.version === 'number' && head.version > backupFormatVersion) {
    throw new BackupRefusal(`This backup has format version ${head.version}, newer than this Cartridge reads (${backupFormatVersion}): restore it with the version that made it, or a newer one.`);
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BackupRefusal(`${path} is damaged: ${issue.path.join('.') || 'manifest'}: ${issue.message}.`);
  }
  return parsed.data;
}

/** A backup whose database has migrations this version does not know comes from a newer Cartridge. */
function checkMigrations(manifest: BackupManifest): void {
  const known = new Set(loadMigrations().map((migration) => migration.hash));
  const unknown = manifest.migrations.list.filter((migration) => !known.has(migration.hash));
  if (unknown.length > 0) {
    throw new BackupRefusal(
      `This backup's database has ${counted(unknown.length, 'migration')} this Cartridge does not have (it was made by a newer version, or another build): restore it with the version that made it.`,
    );
  }
}

/** Before anything is written: the dump's checksum, the blob list's, and every listed blob present with the total size. */
async function checkBackupFiles(dir: string, manifest: BackupManifest, progress: (line: string) => void): Promise<void> {
  const dumpPath = join(dir, manifest.database.file);
  if (!existsSync(dumpPath)) throw new BackupRefusal(`${manifest.database.file} is missing from ${dir}: the backup is incomplete.`);
  const dump = await hashFile(dumpPath);
  if (dump.sha256 !== manifest.database.sha256 || dump.bytes !== manifest.database.bytes) {
    throw new BackupRefusal(`${manifest.database.file} is damaged or altered: its SHA-256 is not the one ${manifestFile} names.`);
  }
  const listPath = join(dir, blobListFile);
  if (!existsSync(listPath)) throw new BackupRefusal(`${blobListFile} is missing from ${dir}: the backup is incomplete.`);
  const list = await hashFile(listPath);
  if (list.sha256 !== manifest.blobs.listSha256) throw new BackupRefusal(`${blobListFile} is damaged or altered: its SHA-256 is not the one ${manifestFile} names.`);
  let count = 0;
  let bytes = 0;
  for await (const entry of readBlobList(dir)) {
    const info = await stat(join(dir, blobsFolder, ...entry.key.split('/'))).catch(() => undefined);
    if (!info?.isFile()) throw new BackupRefusal(`The blob ${entry.key} is listed in ${blobListFile} but missing from ${blobsFolder}/: the backup is incomplete.`);
    count++;
    bytes += info.size;
  }
  if (count !== manifest.blobs.count || bytes !== manifest.blobs.bytes) {
    throw new BackupRefusal(`${blobsFolder}/ holds ${counted(count, 'blob')} of ${formatSize(bytes)}, the manifest ${counted(manifest.blobs.count, 'blob')} of ${formatSize(manifest.blobs.bytes)}: the backup is damaged.`);
  }
  if (manifest.secretKey.source === 'file' && secretKeyId(await readBackupKey(dir)) !== manifest.secretKey.keyId) {
    throw new BackupRefusal(`${secretKeyFile} is missing from the backup or is not the key its manifest names.`);
  }
  progress(`Backup checked: ${manifest.database.file} (${formatSize(manifest.database.bytes)}), ${counted(count, 'blob')} (${formatSize(bytes)}).`);
}

/** Refuses a target that holds anything (unless --force); runRestore holds an embedded database's lock. */
async function checkTarget(target: Target, manifest: BackupManifest, force: boolean): Promise<void> {
  const occupied: string[] = [];
  if (target.postgres) {
    const { target: connection, pgRestore } = target.postgres;
    const dumpMajor = Number(/\)\s*(\d+)/.exec(manifest.database.dumpTool ?? '')?.[1] ?? 0);
    if (pgRestore.major < dumpMajor) {
      throw new BackupRefusal(`${pgRestore.path} is version ${pgRestore.major}, older than the pg_dump ${dumpMajor} that made this backup: install PostgreSQL ${dumpMajor}'s client programs or set PG_RESTORE.`);
    }
    const relations = await countRelations(target.config.databaseUrl!, connection);
    if (relations > 0) occupied.push(`the database ${connection.display} (${counted(relations, 'table')})`);
  } else {
    if (existsSync(target.pgliteDir) && readdirSync(target.pgliteDir).length > 0) occupied.push(`the embedded database in ${target.pgliteDir}`);
  }
  if (!(await storeIsEmpty(target.store))) occupied.push(target.storeLabel);
  if (manifest.secretKey.source === 'file') {
    const path = join(target.config.dataDir, 'secret.key');
    if (existsSync(path) && secretKeyId((await readFile(path, 'utf8')).trim()) !== manifest.secretKey.keyId) occupied.push(`${path} (another key)`);
  }
  if (occupied.length > 0 && !force) {
    throw new BackupRefusal(`The target is not empty: ${occupied.join(', ')}. Restore into an empty one, or pass --force to replace what is there.`);
  }
}

async function countRelations(databaseUrl: string, connection: PostgresTarget): Promise<number> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {}, connection: { application_name: 'cartridge-restore' } });
  try {
    const [row] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p', 'v', 'm', 'S', 'f') and n.nspname not in ('pg_catalog', 'information_schema')
        and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'`;
    return row?.n ?? 0;
  } catch (error) {
    throw new Error(`cannot connect to ${connection.display}: ${withoutPassword(error instanceof Error ? error.message : String(error), connection.password)}`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Applies this version's migrations to the restored database; the number applied in all. */
async function migrate(handle: DatabaseHandle, query: (text: string) => Promise<Record<string, unknown>[]>): Promise<number> {
  await migrateDatabase(handle);
  return migrationRows(await query(appliedMigrationsQuery)).length;
}

/**
 * pg_restore into the database of DATABASE_URL in one transaction, owned by the connecting role (no
 * owners or grants from the old server). With --force, every schema but PostgreSQL's own is dropped
 * first, so tables of a newer version do not stay behind.
 */
async function restorePostgres(dir: string, manifest: BackupManifest, tools: NonNullable<Target['postgres']>, databaseUrl: string, force: boolean): Promise<number> {
  if (force) {
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {}, connection: { application_name: 'cartridge-restore' } });
    try {
      const schemas = await sql<{ name: string }[]>`
        select nspname as name from pg_namespace
        where nspname not in ('pg_catalog', 'information_schema') and nspname not like 'pg\\_toast%' and nspname not like 'pg\\_temp%'`;
      await sql.begin(async (tx) => {
        for (const { name } of schemas) await tx.unsafe(`drop schema "${name.replaceAll('"', '""')}" cascade`);
        await tx.unsafe('create schema public');
      });
    } finally {
      await sql.end({ timeout: 5 });
    }
  }
  // --dbname '' leaves the database to PGDATABASE, like the rest of the connection.
  await runPostgresTool(
    tools.pgRestore,
    ['--dbname', '', '--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', '--no-password', join(dir, manifest.database.file)],
    tools.target,
  );
  const handle = await openDatabase({ url: databaseUrl });
  try {
    const client = (handle.db as unknown as { $client: postgres.Sql }).$client;
    return await migrate(handle, (text) => client.unsafe(text) as Promise<Record<string, unknown>[]>);
  } finally {
    await handle.close();
  }
}

/**
 * PGlite loads its dump into a folder beside DATA_DIR/db, is migrated and closed there, and the folder
 * then takes DATA_DIR/db's place (the one it replaces, with --force, is removed last).
 */
async function restorePglite(dir: string, manifest: BackupManifest, pgliteDir: string): Promise<number> {
  const staging = `${pgliteDir}.restoring`;
  const replaced = `${pgliteDir}.replaced`;
  await rm(staging, { recursive: true, force: true });
  let applied: number;
  const handle = await openDatabase({ pgliteDir: staging, pgliteTemplate: Bun.file(join(dir, manifest.database.file)) });
  try {
    const client = (handle.db as unknown as { $client: PGlite }).$client;
    applied = await migrate(handle, async (text) => (await client.query<Record<string, unknown>>(text)).rows);
  } finally {
    await handle.close();
    await rm(`${staging}.lock`, { force: true });
  }
  await rm(replaced, { recursive: true, force: true });
  if (existsSync(pgliteDir)) await rename(pgliteDir, replaced);
  await rename(staging, pgliteDir);
  await rm(replaced, { recursive: true, force: true });
  return applied;
}

/** DIR/secret.key's key, '' when missing. */
async function readBackupKey(dir: string): Promise<string> {
  return (await readFile(join(dir, secretKeyFile), 'utf8').catch(() => '')).trim();
}

/** DATA_DIR/secret.key back from the backup (mode 0600); what SECRET_KEY means for the restored data, said. */
async function restoreSecretKey(dir: string, manifest: BackupManifest, target: Target, progress: (line: string) => void): Promise<void> {
  const { source, keyId, previousKeyId } = manifest.secretKey;
  const previous = target.config.previousSecretKey;
  if (previousKeyId && (!previous || secretKeyId(previous) !== previousKeyId)) {
    progress(`Warning: this backup was made with SECRET_KEY_PREVIOUS set (key id ${previousKeyId}): set it again, or what that key sealed will not open.`);
  }
  const environmentId = target.secretKeyFromEnvironment ? secretKeyId(target.secretKeyFromEnvironment) : undefined;
  const mismatch = `SECRET_KEY is set to another key (key id ${environmentId}) than the one this backup was made with (key id ${keyId}): the server refuses to start with it (the database records the backup's key) until \`cartridge admin adopt-secret-key\` makes it the instance key, after which deploy keys stored sealed will not open and signed links change`;
  if (source === 'file') {
    const key = await readBackupKey(dir);
    const path = join(target.config.dataDir, 'secret.key');
    await mkdir(target.config.dataDir, { recursive: true });
    const partial = `${path}.restoring`;
    const handle = await open(partial, 'w', 0o600);
    try {
      await handle.writeFile(`${key}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(partial, 0o600);
    await rename(partial, path);
    progress(`Secret key: restored to ${path} (key id ${keyId}).`);
    if (environmentId && environmentId !== keyId) progress(`Warning: ${mismatch}; unset SECRET_KEY to use the restored ${path}.`);
  } else if (source === 'environment') {
    if (!environmentId) progress(`Warning: this backup was made with SECRET_KEY set in the environment (key id ${keyId}): set the same SECRET_KEY before starting the server.`);
    else if (environmentId !== keyId) progress(`Warning: ${mismatch}.`);
    else progress(`Secret key: SECRET_KEY is the key this backup was made with (key id ${keyId}).`);
  }
}
