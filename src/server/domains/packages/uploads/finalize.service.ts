import { and, eq } from 'drizzle-orm';
import { encodeIndex, isArchiveError, listUniqueChunks, readArchive, toHex, type ArchiveIndex, type CompressionAlgorithm } from '../../../../shared/archive/index.ts';
import { finalizePackageInput, type Package, type PartDescriptor } from '../../../../shared/schemas/packages.ts';
import type { Executor } from '../../../db/client.ts';
import { packageChunks, packages, uploadParts } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { AppError } from '../../../errors.ts';
import type { BlobStore } from '../../../storage/index.ts';
import { chunkKey, indexKey, partKey } from '../blobs/blob-keys.ts';
import { noteTransientBytes } from '../../../memory/transient-bytes.ts';
import { lockChunkStoreShared } from '../blobs/chunk-store-lock.ts';
import { enqueuePackagePrepare } from '../downloads/package-prepare.job.ts';
import { describePackage } from '../records/describe-package.ts';
import { findPackageRow, type PackageRow } from '../records/package-rows.ts';
import { streamParts } from './part-stream.ts';
import { checkUploadToken } from './upload-token.ts';

type ChunkRow = { hash: string; size: number; compressedSize: number };

function sameParts(a: readonly PartDescriptor[] | null, b: readonly PartDescriptor[]): boolean {
  if (!a || a.length !== b.length) return false;
  return a.every((part, i) => part.part === b[i]!.part && part.hash === b[i]!.hash && part.size === b[i]!.size);
}

/** Parts [0..n) in order, each as uploaded, adding up to the declared size; bad_param otherwise. */
async function checkParts(db: Executor, row: PackageRow, parts: PartDescriptor[]): Promise<void> {
  let total = 0;
  parts.forEach((part, i) => {
    if (part.part !== i) throw new AppError('bad_param', `Invalid \`parts\`: expected part ${i}, got ${part.part}`);
    total += part.size;
  });
  if (total !== row.declaredSize) throw new AppError('bad_param', `Invalid \`parts\`: they hold ${total} bytes, the package declared ${row.declaredSize}`);
  const uploaded = await db.select().from(uploadParts).where(eq(uploadParts.packageId, row.id));
  const byPart = new Map(uploaded.map((item) => [item.part, item]));
  for (const part of parts) {
    const stored = byPart.get(part.part);
    if (!stored || stored.sha1 !== part.hash || stored.size !== part.size) {
      throw new AppError('bad_param', `Invalid \`parts\`: part ${part.part} was not uploaded with this hash and size`);
    }
  }
}

/** Runs tasks with at most `limit` in flight (chunk writes and existence checks). */
async function eachLimited<T>(items: Iterable<T> | AsyncIterable<T>, limit: number, task: (item: T) => Promise<void>): Promise<void> {
  const running = new Set<Promise<void>>();
  // A failed task must stop the loop: remember it, and rethrow at the next step.
  let failure: { error: unknown } | undefined;
  for await (const item of items) {
    if (failure) break;
    const promise: Promise<void> = task(item)
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => running.delete(promise));
    running.add(promise);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) throw failure.error;
}

async function readArchiveParts(deps: Deps, row: PackageRow, parts: PartDescriptor[]) {
  try {
    return await readArchive(streamParts(deps.storage, row.id, parts));
  } catch (error) {
    throw asFinalizeError(error);
  }
}

/** A path in a reply: whole up to beyond the 4096-byte path limit, shortened for hostile ones (a 100,000-byte name). */
function shorten(text: string, max = 4200): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** An archive the reader refuses is the client's fault: 400 bad_param naming the archive code and, when known, the path. */
function asFinalizeError(error: unknown): unknown {
  if (!isArchiveError(error)) return error;
  const where = error.path === undefined ? '' : ` at '${shorten(error.path)}'`;
  const details = error.path === undefined ? { archiveError: error.code } : { archiveError: error.code, path: shorten(error.path) };
  return new AppError('bad_param', `Invalid archive: ${error.code}${where} (${shorten(error.message)})`, details);
}

/** Stores the archive's own chunks (skipping ones already stored) and returns them, one chunk in memory at a time. */
async function storeChunks(storage: BlobStore, compression: CompressionAlgorithm, chunks: AsyncIterable<{ hash: Uint8Array; size: number; compressedSize: number; storedBytes: Uint8Array }>): Promise<ChunkRow[]> {
  const stored: ChunkRow[] = [];
  async function* rows() {
    try {
      for await (const chunk of chunks) yield chunk;
    } catch (error) {
      throw asFinalizeError(error);
    }
  }
  await eachLimited(rows(), 8, async (chunk) => {
    const hash = toHex(chunk.hash);
    const key = chunkKey(compression, hash, chunk.compressedSize);
    // The bytes may be a view into one of the stream's pieces: each piece is a buffer of its own, never
    // reused, so writing the view is safe and costs no copy; it keeps at most a piece per write alive.
    noteTransientBytes(chunk.compressedSize + chunk.size); // the stream's pieces and the verified raw bytes
    if (!(await storage.stat(key))) await storage.put(key, chunk.storedBytes);
    stored.push({ hash, size: chunk.size, compressedSize: chunk.compressedSize });
  });
  return stored;
}

/** Every chunk blob must exist at commit time (the chunk collector may have taken one meanwhile). */
async function requireChunkBlobs(storage: BlobStore, compression: CompressionAlgorithm, chunks: Iterable<ChunkRow>): Promise<void> {
  await eachLimited(chunks, 16, async (chunk) => {
    if (!(await storage.stat(chunkKey(compression, chunk.hash, chunk.compressedSize)))) {
      throw new AppError('unexpected_error', 'A chunk was collected while finalizing: finalize again');
    }
  });
}

export async function insertPackageChunks(db: Executor, packageId: string, rows: ChunkRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 1000) {
    const batch = rows.slice(start, start + 1000).map((row) => ({ packageId, ...row }));
    await db.insert(packageChunks).values(batch).onConflictDoNothing();
  }
}

/** The base a patch names must be the package's declared base (same index hash). */
async function checkPatchShape(db: Executor, row: PackageRow, baseIndexHash: Uint8Array | undefined): Promise<void> {
  if (baseIndexHash === undefined) {
    if (row.basePackageId) throw new AppError('not_patch', 'The package has a base package but the archive is not a patch');
    return;
  }
  if (!row.basePackageId) throw new AppError('unexpected_patch', 'The archive is a patch but the package has no base package');
  const base = await findPackageRow(db, row.basePackageId);
  if (!base || base.indexHash !== toHex(baseIndexHash)) {
    throw new AppError('unexpected_patch', 'The archive is a patch of another package than its base package');
  }
}

function indexBytes(index: ArchiveIndex): Uint8Array {
  return new Uint8Array(Buffer.concat(encodeIndex(index)));
}

/**
 * PUT .../packages/{package}/finalize {token, parts}: checks the part list, streams the parts through
 * the archive reader (which verifies the index hash and every chunk), stores the chunks it does not
 * have yet and the index, then in one transaction records the chunks and marks the package ready (or
 * 'finalized' for a patch, which POST .../resolve completes). Crash-safe: everything before that
 * transaction is idempotent (content-addressed chunks, the index under the package's key), so a
 * repeat after a crash redoes it. A repeat with the same parts after success returns the package;
 * other parts are already_finalized. Parts are deleted after the commit.
 */
export async function finalizePackage(deps: Deps, projectId: string, packageId: string, rawInput: unknown): Promise<Package> {
  const input = finalizePackageInput.parse(rawInput);
  const parts = [...input.parts].map((part) => ({ ...part, hash: part.hash.toLowerCase() })).sort((a, b) => a.part - b.part);
  const row = await findPackageRow(deps.db, packageId);
  if (!row || row.projectId !== projectId) throw new AppError('not_found', 'package not found');
  await checkUploadToken(deps.db, packageId, input.token, { allowExpired: row.status !== 'uploading' });
  if (row.status !== 'uploading') return finishedAlready(row, parts);
  await checkParts(deps.db, row, parts);

  const archive = await readArchiveParts(deps, row, parts);
  await checkPatchShape(deps.db, row, archive.baseIndexHash).catch(async (error) => {
    await archive.cancel();
    throw error;
  });
  const compression = archive.index.compression;
  const own = await storeChunks(deps.storage, compression, archive.chunks());
  const bytes = indexBytes(archive.index);
  await deps.storage.put(indexKey(packageId), bytes);
  const isPatch = archive.baseIndexHash !== undefined;
  const all = listUniqueChunks(archive.index);

  const finished = await deps.db.transaction(async (tx) => {
    await lockChunkStoreShared(tx);
    const current = await findPackageRow(tx, packageId, { lock: true });
    if (!current) throw new AppError('not_found', 'package not found');
    if (current.status !== 'uploading') return finishedAlready(current, parts);
    await requireChunkBlobs(deps.storage, compression, own);
    await insertPackageChunks(tx, packageId, own);
    const [updated] = await tx
      .update(packages)
      .set({
        status: isPatch ? 'finalized' : 'ready',
        indexHash: toHex(archive.indexHash),
        totalSize: archive.index.root.size,
        storedSize: own.reduce((sum, chunk) => sum + chunk.compressedSize, 0),
        compression,
        chunkCount: all.length,
        finalizedParts: parts,
        finalizedAt: new Date(),
        error: null,
      })
      .where(and(eq(packages.id, packageId), eq(packages.status, 'uploading')))
      .returning({ id: packages.id });
    if (!updated) throw new AppError('already_finalized', 'The package is already finalized');
    await tx.delete(uploadParts).where(eq(uploadParts.packageId, packageId));
    if (!isPatch) await enqueuePackagePrepare(tx, projectId, packageId);
    return describePackage((await findPackageRow(tx, packageId))!);
  });
  deps.jobSignal.notify();
  await Promise.all(parts.map((part) => deps.storage.delete(partKey(packageId, part.part)).catch(() => undefined)));
  return finished;
}

function finishedAlready(row: PackageRow, parts: PartDescriptor[]): Package {
  if (sameParts(row.finalizedParts, parts)) return describePackage(row);
  throw new AppError('already_finalized', 'The package is already finalized');
}

