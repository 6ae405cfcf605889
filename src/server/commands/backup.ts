import { existsSync, statSync } from 'node:fs';
import { chmod, copyFile, mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { formatSize } from '../../shared/format/size.ts';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { openDatabase, pgliteDirOf } from '../db/client.ts';
import { lockDataFolder, type DataFolderLock } from '../db/data-folder-lock.ts';
import { chunkStoreLock } from '../storage/chunk-store-lock.ts';
import { createBlobStore, type BlobStore } from '../storage/index.ts';
import type { CommandOutput } from './admin.ts';
import { copyBlobsOut, describeStore, fileStoreRoot, writeStreamToFile, type CopiedBlobs } from './backup-blobs.ts';
import {
  appliedMigrationsQuery,
  backupFormat,
  backupFormatVersion,
  BackupRefusal,
  blobListFile,
  counted,
  databaseFiles,
  hashFile,
  isEmptyFolder,
  manifestFile,
  migrationRows,
  migrationSummary,
  secretKeyFile,
  type BackupManifest,
} from './backup-format.ts';
import { secretKeyId } from '../crypto/index.ts';
import { findPostgresTool, postgresTarget, runPostgresTool, withoutPassword } from './postgres-tools.ts';

/**
 * Stands in for an unset SECRET_KEY while the configuration is read, so that reading it never generates
 * DATA_DIR/secret.key (config.ts does on a first start): the backup commands look at that file themselves.
 */
const unsetSecretKey = 'backup-command-reads-no-secret-key-0123456789';

/** The server's configuration for a backup command, and where its secret key comes from. */
export function loadCommandConfig(): { config: Config; secretKeyFromEnvironment: string | undefined } {
  const fromEnvironment = process.env.SECRET_KEY || undefined;
  const config = loadConfig({ ...process.env, SECRET_KEY: fromEnvironment ?? unsetSecretKey });
  return { config, secretKeyFromEnvironment: fromEnvironment };
}

/** The store named by STORAGE_URL; a bad S3 setting is a ConfigError (exit code 1) naming the variable. */
export function openCommandStore(config: Config): BlobStore {
  try {
    return createBlobStore(config.storageUrl, { dataDir: config.dataDir });
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
}

type DatabasePart = { manifest: BackupManifest['database']; migrations: BackupManifest['migrations'] };

/**
 * `cartridge admin backup DIR`: the database, every blob of the store and the generated secret key into
 * DIR, which must be new or empty; DIR/manifest.json is written last. An embedded database is dumped by
 * PGlite itself and needs the server stopped; PostgreSQL is dumped by pg_dump while the server runs,
 * under the chunk-store lock held shared from before the dump until the last blob is copied, so no
 * collector deletes a blob the dump names (docs/en/backup.md, "Consistency").
 */
export async function runBackup(dirArgument: string, out: CommandOutput): Promise<void> {
  const started = performance.now();
  const { config, secretKeyFromEnvironment } = loadCommandConfig();
  const dir = resolve(dirArgument);
  const storeRoot = fileStoreRoot(config.storageUrl, config.dataDir);
  if (storeRoot && (dir === storeRoot || dir.startsWith(storeRoot + sep))) throw new BackupRefusal(`${dir} is inside the blob store (${storeRoot}): back up somewhere else.`);
  if (!isEmptyFolder(dir)) throw new BackupRefusal(`${dir} is not empty: back up into a new folder or an empty one.`);
  const pgliteDir = pgliteDirOf(config.dataDir);
  if (!config.databaseUrl) {
    if (!existsSync(join(pgliteDir, 'PG_VERSION'))) throw new BackupRefusal(`There is no embedded database in ${pgliteDir}: check DATA_DIR (or set DATABASE_URL for PostgreSQL).`);
  }
  // Held until the last blob is copied: no server starts on the folder mid-backup.
  const lock = config.databaseUrl ? undefined : lockDataFolder(pgliteDir);
  const store = openCommandStore(config);
  const created = !existsSync(dir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (created) await chmod(dir, 0o700);
  out.stdout(`Backing up to ${dir}\n`);
  const progress = (line: string) => out.stdout(`${line}\n`);
  try {
    let database: DatabasePart;
    let blobs: CopiedBlobs;
    if (config.databaseUrl) {
      ({ database, blobs } = await backUpPostgres(config.databaseUrl, dir, store, config, progress));
    } else {
      database = await backUpPglite(pgliteDir, lock!, dir, progress);
      progress(`Blobs (${describeStore(config.storageUrl, config.dataDir)}):`);
      blobs = await copyBlobsOut(store, dir, progress);
    }
    progress(blobsLine(blobs));
    const secretKey = await backUpSecretKey(config.dataDir, secretKeyFromEnvironment, dir, progress);
    if (config.previousSecretKey) {
      secretKey.previousKeyId = secretKeyId(config.previousSecretKey);
      progress(`Secret key: SECRET_KEY_PREVIOUS is set (key id ${secretKey.previousKeyId}); keep it with the backup too, until every sealed value is sealed again.`);
    }
    const manifest: BackupManifest = {
      format: backupFormat,
      version: backupFormatVersion,
      createdAt: new Date().toISOString(),
      database: database.manifest,
      migrations: database.migrations,
      blobs: { store: store.kind, count: blobs.count, bytes: blobs.bytes, list: blobListFile, listSha256: blobs.listSha256, vanished: blobs.vanished, skipped: blobs.skipped, skippedKeys: blobs.skippedKeys },
      secretKey,
    };
    await writeManifest(dir, manifest);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    out.stdout(`Backup complete in ${seconds} s: ${join(dir, manifestFile)}\n`);
  } catch (error) {
    // Nothing half-made stays behind to be mistaken for a backup (one interrupted harder has no manifest).
    if (created) await rm(dir, { recursive: true, force: true });
    else for (const name of await readdir(dir).catch(() => [])) await rm(join(dir, name), { recursive: true, force: true });
    throw error;
  } finally {
    await store.close?.();
    lock?.release();
  }
}

function blobsLine(blobs: CopiedBlobs): string {
  const notes = [
    blobs.vanished > 0 ? `${counted(blobs.vanished, 'blob')} deleted by the server while listed (finished uploads' parts): not needed` : '',
    blobs.skipped > 0 ? `${counted(blobs.skipped, 'key')} that Cartridge does not write skipped: ${blobs.skippedKeys.slice(0, 5).join(', ')}${blobs.skipped > 5 ? ', …' : ''}` : '',
  ].filter(Boolean);
  return `  ${counted(blobs.count, 'blob')}, ${formatSize(blobs.bytes)} in blobs/ (checksums in ${blobListFile})${notes.length > 0 ? `; ${notes.join('; ')}` : ''}`;
}

async function backUpPglite(pgliteDir: string, lock: DataFolderLock, dir: string, progress: (line: string) => void): Promise<DatabasePart> {
  const handle = await openDatabase({ pgliteDir, heldLock: lock });
  try {
    const client = (handle.db as unknown as { $client: PGlite }).$client;
    const migrations = await client.query<Record<string, unknown>>(appliedMigrationsQuery).catch(() => {
      throw new BackupRefusal(`The embedded database in ${pgliteDir} has no Cartridge tables: check DATA_DIR.`);
    });
    const server = String((await client.query<{ version: string }>('select version() as version')).rows[0]?.version ?? '');
    const dump = await client.dumpDataDir('gzip');
    const file = databaseFiles.pglite;
    const written = await writeStreamToFile(join(dir, file), dump.stream() as ReadableStream<Uint8Array>);
    progress(`Database (embedded, ${shortVersion(server)}): ${file}, ${formatSize(written.bytes)}`);
    return {
      manifest: { kind: 'pglite', file, bytes: written.bytes, sha256: written.sha256, server },
      migrations: migrationSummary(migrationRows(migrations.rows)),
    };
  } finally {
    await handle.close();
  }
}

/** "PostgreSQL 17.5 on x86_64…" → "PostgreSQL 17.5". */
function shortVersion(server: string): string {
  return /^PostgreSQL \S+/.exec(server)?.[0] ?? server;
}

/**
 * Online: lock (shared, session-level, on a connection of its own), pg_dump, copy the blobs, check the
 * lock was held throughout, unlock. Uploads go on meanwhile (their finalize takes the same lock shared);
 * collectors wait for the end before deleting (they take it exclusively).
 */
async function backUpPostgres(databaseUrl: string, dir: string, store: BlobStore, config: Config, progress: (line: string) => void): Promise<{ database: DatabasePart; blobs: CopiedBlobs }> {
  const target = postgresTarget(databaseUrl);
  const pgDump = findPostgresTool('pg_dump');
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {}, connection: { application_name: 'cartridge-backup' } });
  try {
    let connection: postgres.ReservedSql;
    try {
      connection = await sql.reserve();
    } catch (error) {
      throw new Error(`cannot connect to ${target.display}: ${withoutPassword(error instanceof Error ? error.message : String(error), target.password)}`);
    }
    try {
      const [{ number, version } = { number: '0', version: '' }] = await connection<{ number: string; version: string }[]>`select current_setting('server_version_num') as number, version() as version`;
      const serverMajor = Math.floor(Number(number) / 10_000);
      if (pgDump.major < serverMajor) {
        throw new BackupRefusal(
          `${pgDump.path} is version ${pgDump.major}, older than the PostgreSQL ${serverMajor} server: install its client programs (Debian: postgresql-client-${serverMajor}) or set PG_DUMP to a pg_dump ${serverMajor} or newer.`,
        );
      }
      const migrations = await connection.unsafe<Record<string, unknown>[]>(appliedMigrationsQuery).catch(() => {
        throw new BackupRefusal(`The database ${target.display} has no Cartridge tables: check DATABASE_URL.`);
      });
      const [free] = await connection<{ locked: boolean }[]>`select pg_try_advisory_lock_shared(${chunkStoreLock}) as locked`;
      if (!free?.locked) {
        progress('Waiting for a blob collection to finish its batch…');
        await connection`select pg_advisory_lock_shared(${chunkStoreLock})`;
      }
      const [{ pid } = { pid: 0 }] = await connection<{ pid: number }[]>`select pg_backend_pid() as pid`;
      const file = databaseFiles.postgres;
      await runPostgresTool(pgDump, ['--format=custom', '--no-password', '--file', join(dir, file)], target);
      await chmod(join(dir, file), 0o600);
      const dumped = await hashFile(join(dir, file));
      progress(`Database (${shortVersion(version)} at ${target.display}, ${pgDump.short}): ${file}, ${formatSize(dumped.bytes)}`);
      progress(`Blobs (${describeStore(config.storageUrl, config.dataDir)}), while the database's blob collectors wait:`);
      const blobs = await copyBlobsOut(store, dir, progress);
      // The lock lives as long as its session: a connection lost meanwhile would have let collectors run.
      const [held] = await connection<{ held: boolean; pid: number }[]>`
        select pg_backend_pid() as pid, exists (select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()
          and mode = 'ShareLock' and granted and classid::bigint = 0 and objid::bigint = ${chunkStoreLock} and objsubid = 1) as held`.catch(() => []);
      if (!held?.held || held.pid !== pid) throw new Error('the connection holding the blob collectors back was lost during the copy; run the backup again');
      await connection`select pg_advisory_unlock_shared(${chunkStoreLock})`;
      return {
        database: {
          manifest: { kind: 'postgres', file, bytes: dumped.bytes, sha256: dumped.sha256, server: version, dumpTool: pgDump.version },
          migrations: migrationSummary(migrationRows(migrations)),
        },
        blobs,
      };
    } finally {
      connection.release();
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** DATA_DIR/secret.key into DIR (mode 0600) when the key comes from there; the manifest notes where it came from. */
async function backUpSecretKey(dataDir: string, fromEnvironment: string | undefined, dir: string, progress: (line: string) => void): Promise<BackupManifest['secretKey']> {
  if (fromEnvironment) {
    const keyId = secretKeyId(fromEnvironment);
    progress(`Secret key: SECRET_KEY comes from the environment and is not in the backup; keep it with the backup (key id ${keyId}).`);
    return { source: 'environment', keyId };
  }
  const path = join(dataDir, 'secret.key');
  if (!existsSync(path) || !statSync(path).isFile()) {
    progress(`Secret key: neither SECRET_KEY nor ${path} is here; if the servers have a key elsewhere, keep it with the backup.`);
    return { source: 'none' };
  }
  const keyId = secretKeyId((await readFile(path, 'utf8')).trim());
  const copy = join(dir, secretKeyFile);
  await copyFile(path, copy);
  await chmod(copy, 0o600);
  progress(`Secret key: ${path} copied to ${secretKeyFile} (key id ${keyId}); keep the backup as private as the server.`);
  return { source: 'file', keyId };
}

/** manifest.json last, whole or not at all: written beside, flushed, renamed into place. */
async function writeManifest(dir: string, manifest: BackupManifest): Promise<void> {
  const partial = join(dir, `${manifestFile}.partial`);
  const handle = await open(partial, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(manifest, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(partial, join(dir, manifestFile));
  const folder = await open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
