import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { addFile, bytesSource, concatBytes, createTree, listUniqueChunks, packArchive, readAllFiles, readArchive, toHex } from '../../src/shared/archive/index.ts';
import { jobs } from '../../src/server/db/schema/index.ts';
import { openArchiveStream, readPackageIndex } from '../../src/server/domains/packages/records/package-content.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createPackageRecord, packFiles, putPart, sha1Hex, splitParts, storedChunkRow, uploadPackage, waitForJob } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let owner: TestUser;
let project: TestProject;
const partSize = 4096;

beforeAll(async () => {
  server = await startTestServer({ UPLOAD_PART_SIZE: String(partSize) });
  owner = await registerUser(server);
  project = await createProject(server, owner);
});
afterAll(() => server.stop());

function randomBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += 65536) crypto.getRandomValues(bytes.subarray(offset, Math.min(size, offset + 65536)));
  return bytes;
}

async function started(files: Record<string, Uint8Array | string>) {
  const archive = await packFiles(server, files);
  const created = await createPackageRecord(server, owner, project.id, { size: archive.length, tags: ['os:linux'], entrypoint: ['run.sh'] });
  return { archive, created, parts: splitParts(archive, partSize) };
}

function finalize(id: string, body: unknown) {
  return server.fetch(`/api/projects/${project.id}/packages/${id}/finalize`, { method: 'PUT', token: owner.token, json: body });
}

async function readBack(packageId: string) {
  return readAllFiles(await readArchive(await openArchiveStream(server.deps, packageId)));
}

describe('part upload and finalize', () => {
  test('parts out of order, in parallel and repeated give a ready package whose archive reads back', async () => {
    const big = randomBytes(40_000);
    const { created, parts } = await started({ 'run.sh': '#!/bin/sh\necho hi\n', 'data/big.bin': big });
    expect(created.uploadInfo.partHashAlgorithm).toBe('sha1');
    expect(created.uploadInfo.uploadUrl).toBe(`${server.url.toString().replace(/\/$/, '')}/api/uploads/${created.id}`);
    const order = parts.map((_, i) => i).reverse();
    const descriptors = await Promise.all(order.map(async (i) => (await putPart(created.uploadInfo, i, parts[i]!)).json()));
    const again = await putPart(created.uploadInfo, 0, parts[0]!);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ part: 0, hash: sha1Hex(parts[0]!), size: parts[0]!.length });
    const response = await finalize(created.id, { token: created.uploadInfo.token, parts: descriptors });
    expect(response.status).toBe(200);
    const pkg = await response.json();
    expect(pkg).toMatchObject({ id: created.id, status: 'ready', size: 40_000 + 18, basePackage: null, entrypoint: ['run.sh'], tags: ['os:linux'] });
    expect(pkg.indexHash).toMatch(/^[0-9a-f]{64}$/);
    const files = await readBack(created.id);
    expect(files.get('data/big.bin')).toEqual(big);
    // Same parts again: idempotent; other parts: already_finalized; parts are gone afterwards.
    const repeat = await finalize(created.id, { token: created.uploadInfo.token, parts: descriptors });
    expect(repeat.status).toBe(200);
    expect((await repeat.json()).id).toBe(created.id);
    const other = await finalize(created.id, { token: created.uploadInfo.token, parts: descriptors.slice(1) });
    expect(other.status).toBe(409);
    expect((await other.json()).code).toBe('already_finalized');
    const late = await putPart(created.uploadInfo, 0, parts[0]!);
    expect((await late.json()).code).toBe('already_finalized');
    const leftovers = await Array.fromAsync(server.deps.storage.list(`uploads/${created.id}/`));
    expect(leftovers).toEqual([]);
  });

  test('a corrupted part (hash mismatch) is refused and stores nothing', async () => {
    const { created, parts } = await started({ 'a.txt': randomBytes(6000) });
    const corrupted = parts[0]!.slice();
    corrupted[10]! ^= 1;
    const response = await putPart(created.uploadInfo, 0, corrupted, sha1Hex(parts[0]!));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'bad_param', message: 'Invalid `hash`' });
    expect(await server.deps.storage.stat(`uploads/${created.id}/0`)).toBeUndefined();
  });

  test('a part past the declared size, or too long, is bad_param', async () => {
    const { created, parts } = await started({ 'a.txt': 'small' });
    expect(parts.length).toBe(1);
    const beyond = await putPart(created.uploadInfo, 1, new Uint8Array(10));
    expect(beyond.status).toBe(400);
    const tooLong = new Uint8Array(parts[0]!.length + 1);
    const long = await putPart(created.uploadInfo, 0, tooLong);
    expect(long.status).toBe(400);
    expect((await long.json()).code).toBe('bad_param');
    expect(await server.deps.storage.stat(`uploads/${created.id}/0`)).toBeUndefined();
  });

  test('unknown package is not_found; wrong or expired token is wrong_auth', async () => {
    const { created, parts } = await started({ 'a.txt': 'x' });
    const wrong = await putPart(created.uploadInfo, 0, parts[0]!, undefined, 'cu_wrong');
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).code).toBe('wrong_auth');
    const unknown = await putPart({ ...created.uploadInfo, uploadUrl: created.uploadInfo.uploadUrl.replace(created.id, 'nope') }, 0, parts[0]!);
    expect(unknown.status).toBe(404);
    const { packages } = await import('../../src/server/db/schema/index.ts');
    const { eq } = await import('drizzle-orm');
    await server.deps.db.update(packages).set({ uploadExpiresAt: new Date(Date.now() - 1000) }).where(eq(packages.id, created.id));
    const expired = await putPart(created.uploadInfo, 0, parts[0]!);
    expect(expired.status).toBe(401);
    expect((await finalize(created.id, { token: created.uploadInfo.token, parts: [{ part: 0, hash: sha1Hex(parts[0]!), size: parts[0]!.length }] })).status).toBe(401);
  });

  test('finalize checks the part list, and a truncated archive fails with nothing ready', async () => {
    const { archive, created, parts } = await started({ 'a.bin': randomBytes(9000) });
    const descriptors = await Promise.all(parts.map(async (bytes, i) => (await putPart(created.uploadInfo, i, bytes)).json()));
    const missing = await finalize(created.id, { token: created.uploadInfo.token, parts: descriptors.slice(0, -1) });
    expect(missing.status).toBe(400);
    const badHash = await finalize(created.id, { token: created.uploadInfo.token, parts: descriptors.map((d: { hash: string }, i: number) => (i === 0 ? { ...d, hash: '0'.repeat(40) } : d)) });
    expect(badHash.status).toBe(400);
    expect((await finalize(created.id, { token: 'cu_wrong', parts: descriptors })).status).toBe(401);

    // A declared size matching a truncated archive: all parts upload, finalize fails in the reader.
    const truncated = archive.subarray(0, archive.length - 100);
    const other = await createPackageRecord(server, owner, project.id, { size: truncated.length, tags: [] });
    const otherParts = splitParts(truncated, partSize);
    const otherDescriptors = await Promise.all(otherParts.map(async (bytes, i) => (await putPart(other.uploadInfo, i, bytes)).json()));
    const failed = await finalize(other.id, { token: other.uploadInfo.token, parts: otherDescriptors });
    expect(failed.status).toBe(400);
    expect((await failed.json()).message).toContain('archive_ended');
    const row = await server.fetch(`/api/projects/${project.id}/packages/${other.id}`, { token: owner.token });
    expect((await row.json()).status).toBe('uploading');
  });

  test('oversize declared size is limit_exceeded; zstd packages read back', async () => {
    const response = await server.fetch(`/api/projects/${project.id}/packages`, { method: 'POST', token: owner.token, json: { size: 11 * 1024 ** 3, tags: [] } });
    expect(response.status).toBe(429);
    expect((await response.json()).code).toBe('limit_exceeded');
    const text = 'hello '.repeat(5000);
    const pkg = await uploadPackage(server, owner, project.id, { 'a.txt': text }, { compression: 1 });
    expect(pkg.status).toBe('ready');
    expect(pkg.storedSize!).toBeLessThan(text.length);
    expect(new TextDecoder().decode((await readBack(pkg.id)).get('a.txt'))).toBe(text);
  });
});

describe('chunk store keys', () => {
  /** Packs at a chosen zstd level, as a client with its own settings would. */
  async function packAtLevel(files: Record<string, string>, level: number): Promise<Uint8Array> {
    const tree = createTree();
    for (const [path, content] of Object.entries(files)) addFile(tree, path, bytesSource(new TextEncoder().encode(content)));
    const packed = packArchive(tree, { compression: 1, level });
    const bytes = concatBytes(await Array.fromAsync(packed.stream as unknown as AsyncIterable<Uint8Array>));
    await packed.done;
    return bytes;
  }

  async function uploadArchive(archive: Uint8Array): Promise<string> {
    const created = await createPackageRecord(server, owner, project.id, { size: archive.length, tags: [] });
    const parts = splitParts(archive, partSize);
    const descriptors = await Promise.all(parts.map(async (bytes, i) => (await putPart(created.uploadInfo, i, bytes)).json()));
    const response = await finalize(created.id, { token: created.uploadInfo.token, parts: descriptors });
    expect(response.status).toBe(200);
    return created.id;
  }

  async function servedArchive(packageId: string): Promise<Uint8Array> {
    const { url } = (await (await server.fetch(`/api/projects/${project.id}/packages/${packageId}/download`, { token: owner.token })).json()) as { url: string };
    const response = await fetch(url);
    expect(response.status).toBe(200);
    return new Uint8Array(await response.arrayBuffer());
  }

  const zstdSizes = async (packageId: string) => new Map(listUniqueChunks(await readPackageIndex(server.deps, packageId)).map((chunk) => [toHex(chunk.hash), chunk.compressedSize]));

  test('the same content packed at zstd levels 1 and 19 downloads byte-identical to each upload; deleting one keeps the other whole', async () => {
    // Text of many distinct words: compressible, and zstd 19 finds more than zstd 1.
    let words = '';
    for (let i = 0; words.length < 400_000; i++) words += `${((i * 2654435761) >>> 0).toString(36)} ${i % 7 === 0 ? '\n' : ''}`;
    const files = { 'story.txt': words, 'notes/readme.txt': words.slice(0, 90_000).toUpperCase() };
    const fast = await packAtLevel(files, 1);
    const strong = await packAtLevel(files, 19);
    expect(Buffer.from(fast).equals(Buffer.from(strong))).toBe(false);

    const fastId = await uploadArchive(fast);
    const strongId = await uploadArchive(strong);
    const fastSizes = await zstdSizes(fastId);
    const strongSizes = await zstdSizes(strongId);
    expect([...fastSizes.keys()].sort()).toEqual([...strongSizes.keys()].sort());
    const differing = [...fastSizes].filter(([hash, size]) => strongSizes.get(hash) !== size);
    expect(differing.length).toBeGreaterThan(0);
    // One stored copy per (hash, size): both frames of a chunk whose sizes differ.
    for (const [hash, size] of fastSizes) {
      expect(await storedChunkRow(server, 1, hash, size)).toBeDefined();
      expect(await storedChunkRow(server, 1, hash, strongSizes.get(hash)!)).toBeDefined();
    }

    expect(Buffer.from(await servedArchive(fastId)).equals(Buffer.from(fast))).toBe(true);
    expect(Buffer.from(await servedArchive(strongId)).equals(Buffer.from(strong))).toBe(true);
    const space = (await (await server.fetch(`/api/projects/${project.id}/packages/${fastId}/space`, { token: owner.token })).json()) as { storedSize: number; exclusiveSize: number };
    // Chunks whose frames differ are not shared: deleting this package alone frees them.
    expect(space.exclusiveSize).toBe(differing.reduce((sum, [hash]) => sum + fastSizes.get(hash)!, 0));

    const deleted = await server.fetch(`/api/projects/${project.id}/packages/${fastId}`, { method: 'DELETE', token: owner.token });
    expect(deleted.status).toBe(200);
    const [gc] = await server.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'chunk_gc'), eq(jobs.dedupeKey, `package:${fastId}`)));
    expect((await waitForJob(server, gc!.id)).status).toBe('succeeded');
    for (const [hash, size] of differing) {
      expect(await storedChunkRow(server, 1, hash, size)).toBeUndefined();
      expect(await storedChunkRow(server, 1, hash, strongSizes.get(hash)!)).toBeDefined();
    }
    expect(Buffer.from(await servedArchive(strongId)).equals(Buffer.from(strong))).toBe(true);
  });
});
