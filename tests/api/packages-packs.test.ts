import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq, isNotNull } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { decodeIndex, listUniqueChunks, toHex, walkEntries, type CompressionAlgorithm } from '../../src/shared/archive/index.ts';
import { jobs, packages, packs, storedChunks } from '../../src/server/db/schema/index.ts';
import { chunkKey, packKey } from '../../src/server/domains/packages/blob-keys.ts';
import { sweepStorage } from '../../src/server/domains/packages/chunks/storage-sweep.service.ts';
import { cachedZipFile, openPackageFile, zipFileOf } from '../../src/server/domains/packages/downloads/download-files.ts';
import { signedFileUrl } from '../../src/server/domains/packages/downloads/signed-file-url.ts';
import { readStoredZipCrcs, zipCrcKey } from '../../src/server/domains/packages/downloads/zip/crc.ts';
import { archiveLayout } from '../../src/server/domains/packages/downloads/zip/layout.ts';
import type { VirtualFile } from '../../src/server/domains/packages/downloads/zip/segments.ts';
import { readPackageIndex, readPackageIndexBytes } from '../../src/server/domains/packages/records/package-content.ts';
import { findPackageRow } from '../../src/server/domains/packages/records/package-rows.ts';
import { finalizePackage } from '../../src/server/domains/packages/uploads/finalize.service.ts';
import type { BlobStore } from '../../src/server/storage/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createPackageRecord, keysUnder, packFiles, putPart, splitParts, uploadPackage as upload, waitForJob, type PackageFiles, type UploadOptions } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startS3Server, type TestS3Server } from '../support/s3-server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { downloadUrl, fetchBytes, sha256Hex } from './packages-downloads-support.ts';

/**
 * Pack files (issue 20): chunks are stored many to a blob. The server runs with 1 MiB packs, so a few
 * MiB make several of them; everything is checked through the real API and the blob store itself.
 */
const MiB = 1024 * 1024;
const packSize = MiB;
const later = () => Date.now() + 2 * 3600_000; // past the storage sweep's one-hour grace

let server: TestServer;
let owner: TestUser;
let project: TestProject;

beforeAll(async () => {
  server = await startTestServer({ PACK_SIZE: String(packSize) });
  owner = await registerUser(server);
  project = await createProject(server, owner);
});
afterAll(() => server?.stop());

const random = (size: number) => new Uint8Array(randomBytes(size));

/** Its package_prepare job done: tests that drop the download cache must not race the job writing the ZIP into it. */
async function prepared(id: string): Promise<void> {
  const [job] = await server.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'package_prepare'), eq(jobs.dedupeKey, `package:${id}`)));
  if (job) expect((await waitForJob(server, job.id)).status).toBe('succeeded');
}

async function uploadPackage(files: PackageFiles, options: UploadOptions = {}) {
  const pkg = await upload(server, owner, project.id, files, options);
  await prepared(pkg.id);
  return pkg;
}
const packageUrl = (id: string) => `/api/projects/${project.id}/packages/${id}`;

async function download(id: string, kind: 'archive' | 'zip', range?: [number, number]): Promise<Uint8Array> {
  const url = await downloadUrl(server, `${packageUrl(id)}/download${kind === 'zip' ? '?filter=zip' : ''}`, owner.token);
  const { status, bytes } = await fetchBytes(url, range ? { headers: { range: `bytes=${range[0]}-${range[1] - 1}` } } : {});
  expect(status).toBe(range ? 206 : 200);
  return bytes;
}

/** The package's files as unzip extracts them from its ZIP (unzip -t also checks every CRC-32). */
async function unzipped(zip: Uint8Array): Promise<Record<string, string>> {
  const folder = mkdtempSync(join(tmpdir(), 'cartridge-packs-zip-'));
  try {
    const path = join(folder, 'package.zip');
    await Bun.write(path, zip);
    const tested = Bun.spawnSync(['unzip', '-t', path]);
    expect(tested.stdout.toString()).toContain('No errors detected');
    const out = join(folder, 'out');
    expect(Bun.spawnSync(['unzip', '-q', path, '-d', out]).exitCode).toBe(0);
    const files: Record<string, string> = {};
    for (const entry of new Bun.Glob('**/*').scanSync({ cwd: out, onlyFiles: true })) files[entry] = sha256Hex(new Uint8Array(readFileSync(join(out, entry))));
    return files;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

function hashesOf(files: PackageFiles): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([path, content]) => [path, sha256Hex(typeof content === 'string' ? new TextEncoder().encode(content) : content)]));
}

/** The archive and the ZIP download byte for byte (the archive against what was packed, the ZIP's files against the originals). */
async function expectDownloads(id: string, archive: Uint8Array, files: PackageFiles): Promise<void> {
  expect(sha256Hex(await download(id, 'archive'))).toBe(sha256Hex(archive));
  expect(await unzipped(await download(id, 'zip'))).toEqual(hashesOf(files));
}

/** Byte offsets in `layout` where a chunk starting a pack begins: where a read crosses from one pack into the next. */
async function packStarts(layout: VirtualFile, compression: CompressionAlgorithm): Promise<number[]> {
  const rows = await server.deps.db.select().from(storedChunks).where(and(eq(storedChunks.compression, compression), eq(storedChunks.offset, 0)));
  const starts = new Set(rows.map((row) => row.hash));
  return layout.segments.flatMap((segment, i) => (segment.chunk && starts.has(segment.chunk.hash) ? [layout.offsets[i]!] : []));
}

/** Converts chunks of a package to the layout of servers from before packs: a blob each, no stored_chunks row. */
async function toLegacyLayout(id: string, keep: (hash: string, i: number) => boolean = () => false): Promise<void> {
  const index = await readPackageIndex(server.deps, id);
  const chunks = listUniqueChunks(index).map((chunk) => ({ hash: toHex(chunk.hash), compressedSize: chunk.compressedSize }));
  for (const [i, chunk] of chunks.entries()) {
    if (keep(chunk.hash, i)) continue;
    const where = and(eq(storedChunks.compression, index.compression), eq(storedChunks.hash, chunk.hash), eq(storedChunks.compressedSize, chunk.compressedSize));
    const [row] = await server.deps.db.select().from(storedChunks).where(where);
    if (!row) continue;
    const bytes = await server.deps.storage.read(packKey(row.packId), { start: row.offset, end: row.offset + row.compressedSize - 1 });
    await server.deps.storage.put(chunkKey(index.compression, chunk.hash, chunk.compressedSize), bytes);
    await server.deps.db.delete(storedChunks).where(where);
  }
  await server.deps.fileCache.forget(id);
}

async function collectDeleted(id: string): Promise<void> {
  const deleted = await server.fetch(packageUrl(id), { method: 'DELETE', token: owner.token });
  expect(deleted.status).toBe(200);
  const [gc] = await server.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'chunk_gc'), eq(jobs.dedupeKey, `package:${id}`)));
  const done = await waitForJob(server, gc!.id);
  expect(done.error ?? null).toBeNull();
  expect(done.status).toBe('succeeded');
}

async function packIdsOf(id: string): Promise<Set<string>> {
  const index = await readPackageIndex(server.deps, id);
  const ids = new Set<string>();
  for (const chunk of listUniqueChunks(index)) {
    const [row] = await server.deps.db
      .select({ packId: storedChunks.packId })
      .from(storedChunks)
      .where(and(eq(storedChunks.compression, index.compression), eq(storedChunks.hash, toHex(chunk.hash)), eq(storedChunks.compressedSize, chunk.compressedSize)));
    if (row) ids.add(row.packId);
  }
  return ids;
}

describe('storing', () => {
  test('a push of a few MiB is a few pack blobs, no blob per chunk; every chunk has its row', async () => {
    const files: PackageFiles = { 'data/level.pak': random(5 * MiB), 'readme.txt': 'packs\n' };
    for (let i = 0; i < 20; i++) files[`assets/a${i}.bin`] = random(3000 + i);
    const archive = await packFiles(server, files);
    const before = new Set(await keysUnder(server, 'packs/'));
    const pkg = await uploadPackage(files);
    const index = await readPackageIndex(server.deps, pkg.id);
    const unique = listUniqueChunks(index);
    const created = (await keysUnder(server, 'packs/')).filter((key) => !before.has(key));
    expect(await keysUnder(server, 'chunks/')).toEqual([]);
    expect(created.length).toBeGreaterThanOrEqual(5);
    expect(created.length).toBeLessThanOrEqual(7);
    expect(created.length).toBeLessThan(unique.length / 10);
    for (const key of created) {
      const stat = await server.deps.storage.stat(key);
      expect(stat!.size).toBeLessThanOrEqual(packSize + 256 * 1024);
      const [row] = await server.deps.db.select().from(packs).where(eq(packs.id, key.slice('packs/'.length)));
      expect(row?.size).toBe(stat!.size);
    }
    expect(await packIdsOf(pkg.id)).toEqual(new Set(created.map((key) => key.slice('packs/'.length))));
    // The ZIP's CRC-32s were stored by finalize from the chunks' CRCs: those of the files' bytes.
    const crcs = await readStoredZipCrcs(server.deps, pkg.id, index, new Uint8Array(Buffer.from(pkg.indexHash!, 'hex')));
    const expected = [...walkEntries(index.root)].flatMap(({ entry, parts }) => {
      if (entry.kind !== 'file') return [];
      const content = files[parts.join('/')]!;
      return [crc32(typeof content === 'string' ? new TextEncoder().encode(content) : content) >>> 0];
    });
    expect([...crcs!]).toEqual(expected);
    await expectDownloads(pkg.id, archive, files);
  });

  test('a second push of the same files writes nothing new', async () => {
    const files: PackageFiles = { 'same.bin': random(2 * MiB) };
    const first = await uploadPackage(files);
    const keys = await keysUnder(server, 'packs/');
    const second = await uploadPackage(files, { title: 'again' });
    expect(await keysUnder(server, 'packs/')).toEqual(keys);
    expect(await packIdsOf(second.id)).toEqual(await packIdsOf(first.id));
  });
});

describe('reading', () => {
  test('archive and ZIP Range requests across pack boundaries equal the whole download (zstd and raw)', async () => {
    for (const compression of [0, 1] as const) {
      const text = Array.from({ length: 60_000 }, (_, i) => `${((i * 2654435761) >>> 0).toString(36)} `).join('');
      const files: PackageFiles = { 'a/noise.bin': random(3 * MiB), 'b/words.txt': text, 'c/tail.bin': random(500_000) };
      const archive = await packFiles(server, files, { compression });
      const pkg = await uploadPackage(files, { compression });
      await expectDownloads(pkg.id, archive, files);
      const row = (await findPackageRow(server.deps.db, pkg.id))!;
      const indexBytes = await readPackageIndexBytes(server.deps, pkg.id);
      const layouts = { archive: archiveLayout(decodeIndex(indexBytes), indexBytes, row.indexHash!), zip: await zipFileOf(server.deps, row) };
      for (const kind of ['archive', 'zip'] as const) {
        await server.deps.fileCache.forget(pkg.id); // ranges from the chunks, not from a ready-made file
        const whole = await download(pkg.id, kind);
        const starts = await packStarts(layouts[kind], compression);
        expect(starts.length).toBeGreaterThanOrEqual(3);
        for (const start of starts.slice(1)) {
          const range: [number, number] = [Math.max(0, start - 70_000), Math.min(whole.length, start + 70_000)];
          expect(sha256Hex(await download(pkg.id, kind, range))).toBe(sha256Hex(whole.subarray(...range)));
        }
      }
    }
  });

  test('a package stored the legacy way (a blob per chunk) still downloads, also half legacy, half packed', async () => {
    const files: PackageFiles = { 'old/level.pak': random(2 * MiB), 'old/readme.txt': 'from an older server\n' };
    const archive = await packFiles(server, files, { compression: 1 });
    const whole = await uploadPackage(files, { compression: 1 });
    await toLegacyLayout(whole.id);
    await server.deps.storage.delete(zipCrcKey(whole.id));
    expect((await keysUnder(server, 'chunks/zstd/')).length).toBeGreaterThan(10);
    expect(await packIdsOf(whole.id)).toEqual(new Set());
    await expectDownloads(whole.id, archive, files);

    const halfFiles: PackageFiles = { 'half/level.pak': random(2 * MiB) };
    const halfArchive = await packFiles(server, halfFiles);
    const half = await uploadPackage(halfFiles);
    await expectDownloads(half.id, halfArchive, halfFiles); // locations cached, then half of them moved away
    await toLegacyLayout(half.id, (_, i) => i % 2 === 0);
    await expectDownloads(half.id, halfArchive, halfFiles);

    // A new push sharing the legacy chunks finds them stored (their blobs) and writes only its own.
    const more: PackageFiles = { ...files, 'new.txt': 'and a new file\n' };
    const moreArchive = await packFiles(server, more, { compression: 1 });
    const next = await uploadPackage(more, { compression: 1 });
    const index = await readPackageIndex(server.deps, next.id);
    const rows = await server.deps.db.select().from(storedChunks).where(eq(storedChunks.compression, 1));
    const stored = new Set(rows.map((row) => row.hash));
    expect(listUniqueChunks(index).filter((chunk) => stored.has(toHex(chunk.hash)))).toHaveLength(1);
    await expectDownloads(next.id, moreArchive, more);

    // Collecting: the old package's legacy blobs stay while the new one lists them, then go.
    const legacyKeys = await keysUnder(server, 'chunks/zstd/');
    await collectDeleted(whole.id);
    expect(await keysUnder(server, 'chunks/zstd/')).toEqual(legacyKeys);
    await expectDownloads(next.id, moreArchive, more);
    await collectDeleted(next.id);
    expect(await keysUnder(server, 'chunks/zstd/')).toEqual([]);
  });
});

describe('collecting', () => {
  test('packs only a deleted package used are deleted; a mostly dead one is repacked and the survivor downloads byte for byte', async () => {
    // In first-reference order the big file fills the first packs, the small files (shared with the
    // survivor) end up in the last one behind the big file's tail.
    const shared: PackageFiles = {};
    for (let i = 0; i < 20; i++) shared[`z/s${String(i).padStart(2, '0')}.bin`] = random(10_000);
    const doomedFiles: PackageFiles = { 'a/big.bin': random(3.6 * MiB), ...shared };
    const doomed = await uploadPackage(doomedFiles);
    const survivorArchive = await packFiles(server, shared);
    const survivor = await uploadPackage(shared, { title: 'survivor' });
    const doomedPacks = await packIdsOf(doomed.id);
    const [mixed, ...others] = [...(await packIdsOf(survivor.id))];
    expect(others).toEqual([]);
    expect(doomedPacks.has(mixed!)).toBe(true);
    await expectDownloads(survivor.id, survivorArchive, shared);

    await collectDeleted(doomed.id);
    // Only the big file's packs: gone, rows and blobs.
    for (const id of doomedPacks) {
      if (id === mixed) continue;
      expect(await server.deps.db.select().from(packs).where(eq(packs.id, id))).toEqual([]);
      expect(await server.deps.storage.stat(packKey(id))).toBeUndefined();
    }
    // The mixed pack: its live chunks copied into a new pack, their rows moved, the old pack retired
    // (its blob kept for downloads under way until the sweep's grace period has passed).
    const [moved] = [...(await packIdsOf(survivor.id))];
    expect(moved).not.toBe(mixed);
    const [retired] = await server.deps.db.select().from(packs).where(eq(packs.id, mixed!));
    expect(retired?.retiredAt).toBeInstanceOf(Date);
    expect(await server.deps.storage.stat(packKey(mixed!))).toBeDefined();
    const copy = await server.deps.storage.stat(packKey(moved!));
    expect(copy!.size).toBeLessThan(250_000);
    await server.deps.fileCache.forget(survivor.id);
    await expectDownloads(survivor.id, survivorArchive, shared);

    const swept = await sweepStorage(server.deps, later());
    expect(swept.retiredPacks).toBeGreaterThanOrEqual(1); // this one, and any an earlier test left sparse
    expect(await server.deps.storage.stat(packKey(mixed!))).toBeUndefined();
    expect(await server.deps.db.select().from(packs).where(isNotNull(packs.retiredAt))).toEqual([]);
    await server.deps.fileCache.forget(survivor.id);
    await expectDownloads(survivor.id, survivorArchive, shared);
  });

  test('a finalize that died after writing packs: finalizing again reuses them; deleted instead, the sweep removes them', async () => {
    const files: PackageFiles = { 'crash/data.bin': random(3 * MiB) };
    const archive = await packFiles(server, files);
    const created = await createPackageRecord(server, owner, project.id, { size: archive.length, tags: [], entrypoint: null });
    const descriptors = [];
    for (const [part, bytes] of splitParts(archive, created.uploadInfo.partSize).entries()) descriptors.push(await (await putPart(created.uploadInfo, part, bytes)).json());
    const body = { token: created.uploadInfo.token, parts: descriptors };
    // The store fails the index put, which comes after the chunks: packs written and recorded, nothing committed.
    const failing: BlobStore = { ...server.deps.storage, put: (key, ...rest) => (key.endsWith('/index') ? Promise.reject(new Error('disk gone')) : server.deps.storage.put(key, ...rest)) };
    const keysBefore = new Set(await keysUnder(server, 'packs/'));
    await expect(finalizePackage({ ...server.deps, storage: failing }, project.id, created.id, body)).rejects.toThrow('disk gone');
    const written = (await keysUnder(server, 'packs/')).filter((key) => !keysBefore.has(key));
    expect(written.length).toBeGreaterThanOrEqual(3);
    expect((await findPackageRow(server.deps.db, created.id))!.status).toBe('uploading');
    // And a pack blob a dead finalize wrote without recording it.
    const unrecorded = packKey('f'.repeat(24));
    await server.deps.storage.put(unrecorded, random(1000));

    const again = await finalizePackage(server.deps, project.id, created.id, body);
    expect(again.status).toBe('ready');
    await prepared(created.id);
    expect((await keysUnder(server, 'packs/')).filter((key) => !keysBefore.has(key)).sort()).toEqual([...written, unrecorded].sort());
    await expectDownloads(created.id, archive, files);

    // The same crash, then the upload is given up (deleted before its index was written: chunk_gc knows no chunks).
    const other: PackageFiles = { 'crash/other.bin': random(2 * MiB) };
    const otherArchive = await packFiles(server, other);
    const abandoned = await createPackageRecord(server, owner, project.id, { size: otherArchive.length, tags: [], entrypoint: null });
    const otherParts = [];
    for (const [part, bytes] of splitParts(otherArchive, abandoned.uploadInfo.partSize).entries()) otherParts.push(await (await putPart(abandoned.uploadInfo, part, bytes)).json());
    const beforeOther = new Set(await keysUnder(server, 'packs/'));
    await expect(finalizePackage({ ...server.deps, storage: failing }, project.id, abandoned.id, { token: abandoned.uploadInfo.token, parts: otherParts })).rejects.toThrow('disk gone');
    const left = (await keysUnder(server, 'packs/')).filter((key) => !beforeOther.has(key));
    expect(left.length).toBeGreaterThanOrEqual(2);
    await collectDeleted(abandoned.id);
    for (const key of left) expect(await server.deps.storage.stat(key)).toBeDefined(); // not the collector's: no index named them

    const early = await sweepStorage(server.deps);
    expect(early).toMatchObject({ storedChunks: 0, emptyPacks: 0, packBlobs: 0 });
    const swept = await sweepStorage(server.deps, later());
    expect(swept.storedChunks).toBeGreaterThan(0);
    expect(swept.emptyPacks).toBe(left.length);
    expect(swept.packBlobs).toBe(1);
    for (const key of [...left, unrecorded]) expect(await server.deps.storage.stat(key)).toBeUndefined();
    await server.deps.fileCache.forget(created.id);
    await expectDownloads(created.id, archive, files);
  });
});

describe('concurrency', () => {
  test('two finalizes at once of packages sharing chunks both download; one copy of each chunk is recorded', async () => {
    const common = random(3 * MiB);
    const filesA: PackageFiles = { 'common.bin': common, 'a.bin': random(300_000) };
    const filesB: PackageFiles = { 'common.bin': common, 'b.bin': random(300_000) };
    const [archiveA, archiveB] = [await packFiles(server, filesA), await packFiles(server, filesB)];
    const uploads = await Promise.all(
      [archiveA, archiveB].map(async (archive) => {
        const created = await createPackageRecord(server, owner, project.id, { size: archive.length, tags: [], entrypoint: null });
        const parts = [];
        for (const [part, bytes] of splitParts(archive, created.uploadInfo.partSize).entries()) parts.push(await (await putPart(created.uploadInfo, part, bytes)).json());
        return { created, parts };
      }),
    );
    const results = await Promise.all(uploads.map(({ created, parts }) => finalizePackage(server.deps, project.id, created.id, { token: created.uploadInfo.token, parts })));
    expect(results.map((result) => result.status)).toEqual(['ready', 'ready']);
    const [a, b] = uploads.map(({ created }) => created.id) as [string, string];
    await prepared(a);
    await prepared(b);
    await expectDownloads(a, archiveA, filesA);
    await expectDownloads(b, archiveB, filesB);
    const indexA = await readPackageIndex(server.deps, a);
    for (const chunk of listUniqueChunks(indexA)) {
      const rows = await server.deps.db.select().from(storedChunks).where(and(eq(storedChunks.hash, toHex(chunk.hash)), eq(storedChunks.compressedSize, chunk.compressedSize)));
      expect(rows).toHaveLength(1);
    }
    await collectDeleted(a);
    await server.deps.fileCache.forget(b);
    await expectDownloads(b, archiveB, filesB);
    expect((await server.deps.db.select().from(packages).where(eq(packages.id, b)))[0]?.status).toBe('ready');
  });
});

describe('the ZIP from the finalize CRC-32s', () => {
  test('equals the ZIP written in one pass over the bytes', async () => {
    const files: PackageFiles = { 'x/one.bin': random(1.5 * MiB), 'x/two.txt': 'two\n', 'y/empty.txt': '' };
    const pkg = await uploadPackage(files, { compression: 1 });
    const fromCrcs = await download(pkg.id, 'zip');
    const row = (await findPackageRow(server.deps.db, pkg.id))!;
    await server.deps.storage.delete(zipCrcKey(pkg.id));
    await server.deps.fileCache.forget(pkg.id);
    const path = await cachedZipFile(server.deps, row, true);
    expect(sha256Hex(new Uint8Array(readFileSync(path!)))).toBe(sha256Hex(fromCrcs));
  });
});

describe('files made for the download cache (copied from the packs through one reused window)', () => {
  /** The archive's cache file, made as a large download makes it. */
  async function archiveFile(id: string): Promise<Uint8Array> {
    const url = new URL(signedFileUrl(server.url, server.deps.keys, id, 'archive', 'game.archive', 600));
    const [, , , packageId, kind, expires, signature] = url.pathname.split('/');
    const body = await openPackageFile(server.deps, { packageId: packageId!, kind: kind!, expires: expires!, signature: signature! });
    return new Uint8Array(readFileSync((await body.file!(true))!));
  }
  async function zipFile(id: string): Promise<Uint8Array> {
    return new Uint8Array(readFileSync((await cachedZipFile(server.deps, (await findPackageRow(server.deps.db, id))!, true))!));
  }
  /** The streamed downloads (no cache file: small bodies are generated from the chunks) against the files made. */
  async function expectFilesEqualStreams(id: string): Promise<void> {
    await server.deps.fileCache.forget(id);
    const streamed = { zip: await download(id, 'zip'), archive: await download(id, 'archive') };
    expect(sha256Hex(await zipFile(id))).toBe(sha256Hex(streamed.zip));
    expect(sha256Hex(await archiveFile(id))).toBe(sha256Hex(streamed.archive));
    // Without stored CRC-32s the ZIP is written in one pass that computes them on the way.
    await server.deps.storage.delete(zipCrcKey(id));
    await server.deps.fileCache.forget(id);
    expect(sha256Hex(await zipFile(id))).toBe(sha256Hex(streamed.zip));
    expect(await server.deps.storage.stat(zipCrcKey(id))).toBeDefined();
  }

  test('ZIP and archive files equal the streamed downloads: raw and zstd chunks in packs, legacy blobs, half of each', async () => {
    const files: PackageFiles = { 'a/noise.bin': random(3 * MiB), 'a/text.txt': 'level data '.repeat(40_000), 'b/empty.txt': '', 'b/small.txt': 'small\n' };
    for (const compression of [0, 1] as const) {
      const pkg = await uploadPackage(files, { compression });
      expect((await packIdsOf(pkg.id)).size).toBeGreaterThan(1);
      await expectFilesEqualStreams(pkg.id);
      await toLegacyLayout(pkg.id, (_, i) => i % 2 === 0);
      await expectFilesEqualStreams(pkg.id);
    }
  });

  test('a pack gone under cached locations (its chunks moved meanwhile) is located again, once, and the file is still right', async () => {
    const files: PackageFiles = { 'moved/level.pak': random(3 * MiB), 'moved/notes.txt': 'notes '.repeat(20_000) };
    const pkg = await uploadPackage(files, { compression: 1 });
    const before = await zipFile(pkg.id); // locations now cached in this process
    const packIds = await packIdsOf(pkg.id);
    await toLegacyLayout(pkg.id);
    for (const packId of packIds) await server.deps.storage.delete(packKey(packId));
    expect(sha256Hex(await zipFile(pkg.id))).toBe(sha256Hex(before));
    expect(await unzipped(before)).toEqual(hashesOf(files));
  });
});

describe('on an S3 store (moto)', () => {
  let s3: TestS3Server;
  let onS3: TestServer;
  let user: TestUser;
  let s3Project: TestProject;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    s3 = await startS3Server();
    for (const [name, value] of Object.entries(s3.env)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    onS3 = await startTestServer({ PACK_SIZE: String(packSize), STORAGE_URL: `s3://${s3.bucket}/packs-test` });
    user = await registerUser(onS3);
    s3Project = await createProject(onS3, user);
  }, 60_000);
  afterAll(async () => {
    await onS3?.stop();
    await s3?.stop();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  /** GET requests moto served for pack blobs so far. */
  const packGets = async () => (await s3.readLog()).split('\n').filter((line) => /"GET \/[^ ]*\/packs\/[0-9a-f]{24}[ ?]/.test(line)).length;

  test('a push is a few pack blobs, a download reads them in a few ranged GETs, collection deletes them', async () => {
    const files: PackageFiles = { 'big/level.pak': random(4 * MiB), 'big/notes.txt': 'on S3\n' };
    for (let i = 0; i < 10; i++) files[`small/s${i}.bin`] = random(5000);
    const archive = await packFiles(onS3, files, { compression: 1 });
    const pkg = await upload(onS3, user, s3Project.id, files, { compression: 1 });
    const [job] = await onS3.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'package_prepare'), eq(jobs.dedupeKey, `package:${pkg.id}`)));
    expect((await waitForJob(onS3, job!.id)).status).toBe('succeeded');
    const packKeys = await keysUnder(onS3, 'packs/');
    expect(packKeys.length).toBeGreaterThanOrEqual(4);
    expect(packKeys.length).toBeLessThanOrEqual(6);
    expect(await keysUnder(onS3, 'chunks/')).toEqual([]);
    const chunkCount = listUniqueChunks(await readPackageIndex(onS3.deps, pkg.id)).length;
    expect(chunkCount).toBeGreaterThan(60);

    await onS3.deps.fileCache.forget(pkg.id); // from the chunks, not a ready-made file
    const before = await packGets();
    const archiveUrl = await downloadUrl(onS3, `/api/projects/${s3Project.id}/packages/${pkg.id}/download`, user.token);
    expect(sha256Hex((await fetchBytes(archiveUrl)).bytes)).toBe(sha256Hex(archive));
    const gets = (await packGets()) - before;
    // A GET per pack (its first read: 1 MiB, then growing), far from one per chunk.
    expect(gets).toBeGreaterThanOrEqual(packKeys.length);
    expect(gets).toBeLessThanOrEqual(2 * packKeys.length + 2);
    const zipUrl = await downloadUrl(onS3, `/api/projects/${s3Project.id}/packages/${pkg.id}/download?filter=zip`, user.token);
    expect(await unzipped((await fetchBytes(zipUrl)).bytes)).toEqual(hashesOf(files));

    const deleted = await onS3.fetch(`/api/projects/${s3Project.id}/packages/${pkg.id}`, { method: 'DELETE', token: user.token });
    expect(deleted.status).toBe(200);
    const [gc] = await onS3.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'chunk_gc'), eq(jobs.dedupeKey, `package:${pkg.id}`)));
    expect((await waitForJob(onS3, gc!.id)).status).toBe('succeeded');
    expect(await keysUnder(onS3, 'packs/')).toEqual([]);
    expect(await onS3.deps.db.select().from(packs)).toEqual([]);
  }, 120_000);
});
