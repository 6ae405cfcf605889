import { and, eq, sql } from 'drizzle-orm';
import { encodeIndex, isArchiveError, listUniqueChunks, readArchive, shownPath, toHex, type ArchiveIndex, type ReadChunk } from '../../../../shared/archive/index.ts';
import { finalizePackageInput, type Package, type PartDescriptor } from '../../../../shared/schemas/packages.ts';
import type { Executor } from '../../../db/client.ts';
import { packages, uploadParts } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { AppError } from '../../../errors.ts';
import { indexKey, partKey } from '../blob-keys.ts';
import { lockChunkStoreShared } from '../../../storage/chunk-store-lock.ts';
import { unnestRows } from '../../../db/sql-rows.ts';
import { findMissingChunk } from '../chunks/stored-chunks.ts';
import { enqueuePackagePrepare } from '../downloads/package-prepare.job.ts';
import { storeZipCrcs } from '../downloads/zip/crc.ts';
import { fileCrcsFromChunks } from '../downloads/zip/file-crcs.ts';
import { describePackage } from '../records/describe-package.ts';
import { findPackageRow, type PackageRow } from '../records/package-rows.ts';
import { streamParts } from '../../../part-uploads/part-stream.ts';
import { storeArchiveChunks, type ChunkRow } from './store-chunks.ts';
import { checkUploadToken } from './upload-token.ts';

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

async function readArchiveParts(deps: Deps, row: PackageRow, parts: PartDescriptor[]) {
  try {
    return await readArchive(streamParts(deps.storage, row.id, parts, partKey));
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
  const where = error.path === undefined ? '' : ` at '${shorten(shownPath(error.path))}'`;
  const details = error.path === undefined ? { archiveError: error.code } : { archiveError: error.code, path: shorten(error.path) };
  return new AppError('bad_param', `Invalid archive: ${error.code}${where} (${shorten(error.message)})`, details);
}

/** The archive's chunks with the reader's refusals as finalize errors. */
async function* readChunks(chunks: AsyncIterable<ReadChunk>): AsyncGenerator<ReadChunk> {
  try {
    for await (const chunk of chunks) yield chunk;
  } catch (error) {
    throw asFinalizeError(error);
  }
}

/** One statement per 20,000 rows (array parameters): a GiB's 16,000 rows cost one round trip. */
export async function insertPackageChunks(db: Executor, packageId: string, rows: ChunkRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 20_000) {
    const batch = rows.slice(start, start + 20_000);
    const list = unnestRows('c', [
      ['hash', 'text', batch.map((row) => row.hash)],
      ['compressed_size', 'integer', batch.map((row) => row.compressedSize)],
      ['size', 'integer', batch.map((row) => row.size)],
    ]);
    await db.execute(sql`insert into package_chunks (package_id, hash, compressed_size, size)
      select ${packageId}, c.hash, c.compressed_size, c.size from ${list} on conflict do nothing`);
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
 * the archive reader (which verifies the index hash and every chunk), stores the chunks the store does
 * not hold yet in packs (store-chunks.ts), the ZIP's CRC-32s (from the chunks' CRCs: the first ZIP
 * download needs no pass over the package) and the index, then in one transaction records the chunks
 * and marks the package ready (or 'finalized' for a patch, which POST .../resolve completes).
 * Crash-safe: everything before that transaction is idempotent (a chunk recorded by a first attempt is
 * found stored, a pack it wrote without recording it is swept, the index and CRCs are under the
 * package's keys), so a repeat after a crash redoes it. A repeat with the same parts after success
 * returns the package; other parts are already_finalized. Parts are deleted after the commit.
 */
export async function finalizePackage(deps: Deps, projectId: string, packageId: string, rawInput: unknown): Promise<Package> {
  const input = finalizePackageInput.parse(rawInput);
  const parts = [...input.parts].map((part) => ({ ...part, hash: part.hash.toLowerCase() })).sort((a, b) => a.part - b.part);
  const row = await findPackageRow(deps.db, packageId);
  if (!row || row.projectId !== projectId) throw new AppError('not_found', 'package not found');
  await checkUploadToken(deps.db, packageId, input.token, { allowExpired: row.status !== 'uploading' });
  if (row.status !== 'uploading') return finishedAlready(row, parts);
  await checkParts(deps.db, row, parts);
  try {
    return await finalizeFromParts(deps, row, parts);
  } catch (error) {
    // The same finalize sent again (through another process) finished first and dropped the parts this
    // one was reading: its package is the answer.
    const now = await findPackageRow(deps.db, packageId);
    if (now && now.status !== 'uploading') return finishedAlready(now, parts);
    throw error;
  }
}

async function finalizeFromParts(deps: Deps, row: PackageRow, parts: PartDescriptor[]): Promise<Package> {
  const { projectId, id: packageId } = row;
  const archive = await readArchiveParts(deps, row, parts);
  await checkPatchShape(deps.db, row, archive.baseIndexHash).catch(async (error) => {
    await archive.cancel();
    throw error;
  });
  const compression = archive.index.compression;
  const all = listUniqueChunks(archive.index);
  const { own, crcs } = await storeArchiveChunks(deps, compression, all, readChunks(archive.chunks()));
  const isPatch = archive.baseIndexHash !== undefined;
  // A patch's CRCs need its base's chunks too: resolve stores them.
  const fileCrcs = isPatch ? undefined : fileCrcsFromChunks(archive.index, (hash) => crcs.get(hash));
  if (fileCrcs) await storeZipCrcs(deps, packageId, fileCrcs, archive.indexHash);
  await deps.storage.put(indexKey(packageId), indexBytes(archive.index));

  const finished = await deps.db.transaction(async (tx) => {
    await lockChunkStoreShared(tx);
    const current = await findPackageRow(tx, packageId, { lock: true });
    if (!current) throw new AppError('not_found', 'package not found');
    if (current.status !== 'uploading') return finishedAlready(current, parts);
    // The collectors may have taken a chunk found stored meanwhile (chunk-store-lock.ts): then finalize again.
    if (await findMissingChunk(tx, deps.storage, compression, own)) throw new AppError('unexpected_error', 'A chunk was collected while finalizing: finalize again');
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
        touchedAt: sql`now()`,
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

