import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { packageChunks, packages } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { chunkIdentity } from '../blob-keys.ts';
import { enqueueChunkCollection } from './chunk-gc.job.ts';
import { withChunkStoreExclusive } from '../../../storage/chunk-store-lock.ts';
import { sweepPacks, type PackSweepResult } from '../packs/pack-sweep.ts';

/**
 * What a crash can leave behind, found from storage itself (no process memory, any process may run it):
 * - packs: chunk rows no package lists, empty or mostly dead packs, retired packs past the grace period,
 *   pack blobs never recorded (pack-sweep.ts);
 * - legacy chunk blobs (from before packs) no package lists: a finalize or resolve that died after
 *   storing chunks and before its transaction, whose package was then deleted (chunk_gc reads only
 *   what the index names);
 * - upload parts of a package past 'uploading': finalize deletes them after its commit, a crash between
 *   the two leaves them;
 * - blobs under packages/{id}/ and uploads/{id}/ of packages that no longer exist;
 * - uploads whose token expired without a finalize (nobody can finish them): the package is deleted
 *   like a user's delete, its blobs by chunk_gc.
 * Blobs and rows changed within the grace period are left alone (a finalize may be writing them, a
 * download may still read a retired pack); deleting one a finalize still needs is safe anyway: finalize
 * checks every chunk is stored under the shared chunk store lock in its last transaction and fails
 * retryably (chunk-store-lock.ts).
 */
export type StorageSweepResult = { chunks: number; parts: number; packageBlobs: number; expiredUploads: number } & PackSweepResult;

const graceMs = 60 * 60_000;
const batchSize = 500;

/** 'chunks/zstd/{hash}-{size}' or 'chunks/raw/{hash}' → compression and identity. */
function parseChunkKey(key: string): { compression: 0 | 1; hash: string; compressedSize: number | null } | undefined {
  const zstd = /^chunks\/zstd\/([0-9a-f]{64})-(\d+)$/.exec(key);
  if (zstd) return { compression: 1, hash: zstd[1]!, compressedSize: Number(zstd[2]) };
  const raw = /^chunks\/raw\/([0-9a-f]{64})$/.exec(key);
  if (raw) return { compression: 0, hash: raw[1]!, compressedSize: null };
  return undefined;
}

async function isOld(deps: Deps, key: string, before: number): Promise<boolean> {
  const stat = await deps.storage.stat(key);
  return stat !== undefined && stat.modified.getTime() < before;
}

async function sweepChunks(deps: Deps, before: number): Promise<number> {
  let deleted = 0;
  let batch: string[] = [];
  const flush = async () => {
    const parsed = batch.flatMap((key) => {
      const chunk = parseChunkKey(key);
      return chunk ? [{ key, ...chunk }] : [];
    });
    batch = [];
    if (parsed.length === 0) return;
    deleted += await withChunkStoreExclusive(deps, async (tx) => {
      const used = await tx
        .selectDistinct({ hash: packageChunks.hash, compressedSize: packageChunks.compressedSize, compression: packages.compression })
        .from(packageChunks)
        .innerJoin(packages, eq(packages.id, packageChunks.packageId))
        .where(inArray(packageChunks.hash, [...new Set(parsed.map((chunk) => chunk.hash))]));
      const usedSet = new Set(used.map((row) => `${row.compression === 1 ? 1 : 0}:${chunkIdentity(row.compression === 1 ? 1 : 0, row.hash, row.compressedSize)}`));
      let count = 0;
      for (const chunk of parsed) {
        if (usedSet.has(`${chunk.compression}:${chunkIdentity(chunk.compression, chunk.hash, chunk.compressedSize ?? 0)}`)) continue;
        if (!(await isOld(deps, chunk.key, before))) continue;
        await deps.storage.delete(chunk.key);
        count++;
      }
      return count;
    });
  };
  // Collected first, deleted after: deleting while a store lists the same prefix is not portable.
  for await (const item of deps.storage.list('chunks/')) {
    batch.push(item.key);
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  return deleted;
}

/** Package ids named by blobs under `prefix` ('uploads/' or 'packages/'), with their keys. */
async function blobsByPackage(deps: Deps, prefix: string): Promise<Map<string, string[]>> {
  const byPackage = new Map<string, string[]>();
  for await (const item of deps.storage.list(prefix)) {
    const id = item.key.slice(prefix.length).split('/')[0]!;
    if (!byPackage.has(id)) byPackage.set(id, []);
    byPackage.get(id)!.push(item.key);
  }
  return byPackage;
}

async function statusesOf(deps: Deps, ids: string[]): Promise<Map<string, string>> {
  const statuses = new Map<string, string>();
  for (let start = 0; start < ids.length; start += batchSize) {
    const rows = await deps.db.select({ id: packages.id, status: packages.status }).from(packages).where(inArray(packages.id, ids.slice(start, start + batchSize)));
    for (const row of rows) statuses.set(row.id, row.status);
  }
  return statuses;
}

/** Deletes the keys of packages `doomed` says are garbage, if old enough. */
async function sweepPackageBlobs(deps: Deps, prefix: string, before: number, doomed: (status: string | undefined) => boolean, signal?: AbortSignal): Promise<number> {
  const byPackage = await blobsByPackage(deps, prefix);
  const statuses = await statusesOf(deps, [...byPackage.keys()]);
  let deleted = 0;
  for (const [id, keys] of byPackage) {
    if (!doomed(statuses.get(id))) continue;
    signal?.throwIfAborted();
    // Under the lock: a backup's dump may still name this package (deleted since), and copy these.
    deleted += await withChunkStoreExclusive(deps, async () => {
      let count = 0;
      for (const key of keys) {
        if (!(await isOld(deps, key, before))) continue;
        await deps.storage.delete(key);
        count++;
      }
      return count;
    });
  }
  return deleted;
}

/** Uploads nobody can finish any more: deleted (rows now, blobs by chunk_gc), unless a version lists them. */
async function deleteExpiredUploads(deps: Deps, before: number): Promise<number> {
  const expired = await deps.db
    .select({ id: packages.id, projectId: packages.projectId })
    .from(packages)
    .where(and(eq(packages.status, 'uploading'), lt(packages.uploadExpiresAt, new Date(before))));
  let deleted = 0;
  for (const row of expired) {
    const gone = await deps.db.transaction(async (tx) => {
      const removed = await tx
        .delete(packages)
        .where(and(eq(packages.id, row.id), eq(packages.status, 'uploading'), sql`not exists (select 1 from version_packages where package_id = ${row.id})`))
        .returning({ id: packages.id });
      if (removed.length > 0) await enqueueChunkCollection(tx, { packageId: row.id, projectId: row.projectId, compression: 0 });
      return removed.length;
    });
    deleted += gone;
  }
  if (deleted > 0) deps.jobSignal.notify();
  return deleted;
}

/** The 'storage_sweep' job's work (storage-sweep.job.ts). */
export async function sweepStorage(deps: Deps, now = Date.now(), signal?: AbortSignal): Promise<StorageSweepResult> {
  const before = now - graceMs;
  // A job whose lease was lost (signal) stops between steps: each is repeatable by the next attempt.
  signal?.throwIfAborted();
  const expiredUploads = await deleteExpiredUploads(deps, before);
  signal?.throwIfAborted();
  const packs = await sweepPacks(deps, before);
  signal?.throwIfAborted();
  const chunks = await sweepChunks(deps, before);
  signal?.throwIfAborted();
  // Parts: of packages gone or past 'uploading'. packages/{id}/ (index, CRCs, torrent): of packages gone.
  const parts = await sweepPackageBlobs(deps, 'uploads/', before, (status) => status !== 'uploading', signal);
  const packageBlobs = await sweepPackageBlobs(deps, 'packages/', before, (status) => status === undefined, signal);
  return { chunks, parts, packageBlobs, expiredUploads, ...packs };
}
