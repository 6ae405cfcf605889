import { existsSync, readdirSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { z } from 'zod';

/**
 * The backup folder of `cartridge admin backup DIR` (backup.ts) and `restore DIR` (restore.ts):
 *
 *   DIR/database.tar.gz   the embedded database: PGlite's own dump of DATA_DIR/db (dumpDataDir, gzip)
 *   DIR/database.pgdump   or PostgreSQL's: pg_dump --format=custom
 *   DIR/blobs/<key>       every blob the store lists, one file per key (keys are safe relative paths)
 *   DIR/blobs.sha256      `<sha256>  <key>` per blob (sha256sum's format: `cd DIR/blobs && sha256sum -c ../blobs.sha256`)
 *   DIR/secret.key        DATA_DIR/secret.key, when the instance's key was generated there (mode 0600)
 *   DIR/manifest.json     written last: a folder without it is an interrupted backup
 */
export const manifestFile = 'manifest.json';
export const blobsFolder = 'blobs';
export const blobListFile = 'blobs.sha256';
export const secretKeyFile = 'secret.key';
export const databaseFiles = { pglite: 'database.tar.gz', postgres: 'database.pgdump' } as const;

export const backupFormat = 'cartridge-backup';
export const backupFormatVersion = 1;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
const count = z.number().int().nonnegative();

export const manifestSchema = z.object({
  format: z.literal(backupFormat),
  version: z.literal(backupFormatVersion),
  createdAt: z.iso.datetime({ offset: true }),
  database: z.object({
    kind: z.enum(['pglite', 'postgres']),
    file: z.enum([databaseFiles.pglite, databaseFiles.postgres]),
    bytes: count,
    sha256: sha256Hex,
    /** `select version()` of the dumped database, e.g. "PostgreSQL 15.20 on x86_64-pc-linux-gnu, …". */
    server: z.string(),
    /** PostgreSQL: `pg_dump --version`; its major version is the oldest pg_restore that reads the dump. */
    dumpTool: z.string().optional(),
  }),
  /** The migrations the dumped database had applied (drizzle.__drizzle_migrations), oldest first. */
  migrations: z.object({
    count,
    sha256: sha256Hex,
    list: z.array(z.object({ hash: z.string(), createdAt: z.number() })),
  }),
  blobs: z.object({
    store: z.enum(['file', 's3']),
    count,
    bytes: count,
    list: z.literal(blobListFile),
    /** SHA-256 of blobs.sha256 itself, so a changed list (or a removed line) is noticed too. */
    listSha256: sha256Hex,
    /** Listed, then gone before they were read (a finished upload's parts): not in the backup. */
    vanished: count,
    /** Keys the store listed that are not blob keys Cartridge writes (validateBlobKey): not in the backup. */
    skipped: count,
    /** The first of them (20 at most). */
    skippedKeys: z.array(z.string()),
  }),
  secretKey: z.object({
    /** file: DATA_DIR/secret.key, copied as secret.key; environment: SECRET_KEY, not copied; none: neither. */
    source: z.enum(['file', 'environment', 'none']),
    /**
     * The key id sealed secrets carry (crypto/sealing.ts secretKeyId), to tell at restore whether SECRET_KEY is
     * the same key. Every sealed value in the dump holds it already, so the manifest discloses nothing more.
     */
    keyId: z.string().optional(),
    /** SECRET_KEY_PREVIOUS's key id when it was set: values it sealed need it after a restore too. */
    previousKeyId: z.string().optional(),
  }),
});
export type BackupManifest = z.infer<typeof manifestSchema>;

/** A backup or restore that is not done, for a reason the operator can fix: exit code 1, one sentence. */
export class BackupRefusal extends Error {
  override name = 'BackupRefusal';
}

/** SHA-256 (hex) and length of a file, read as a stream. */
export async function hashFile(path: string): Promise<{ sha256: string; bytes: number }> {
  const hasher = new Bun.CryptoHasher('sha256');
  let bytes = 0;
  const handle = await open(path, 'r');
  try {
    const buffer = new Uint8Array(1024 * 1024);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.byteLength, null);
      if (bytesRead === 0) break;
      hasher.update(buffer.subarray(0, bytesRead));
      bytes += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return { sha256: hasher.digest('hex'), bytes };
}

function sha256Text(text: string): string {
  return new Bun.CryptoHasher('sha256').update(text).digest('hex');
}

/** The migration list as the manifest keeps it, with its hash. */
export function migrationSummary(list: { hash: string; createdAt: number }[]): BackupManifest['migrations'] {
  return { count: list.length, sha256: sha256Text(list.map((item) => `${item.createdAt} ${item.hash}\n`).join('')), list };
}

/** Rows of drizzle.__drizzle_migrations as { hash, createdAt } (bigint arrives as text or bigint). */
export function migrationRows(rows: Record<string, unknown>[]): { hash: string; createdAt: number }[] {
  return rows.map((row) => ({ hash: String(row.hash), createdAt: Number(row.created_at) }));
}
export const appliedMigrationsQuery = 'select hash, created_at from drizzle.__drizzle_migrations order by created_at, id';

/** True for a missing folder or an empty one. */
export function isEmptyFolder(path: string): boolean {
  if (!existsSync(path)) return true;
  if (!statSync(path).isDirectory()) return false;
  return readdirSync(path).length === 0;
}

/** "2 blobs" / "1 blob". */
export function counted(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
