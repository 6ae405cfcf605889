import { afterAll, beforeAll, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { jobs, packages, packs, storedChunks } from '../../src/server/db/schema/index.ts';
import { sweepStorage } from '../../src/server/domains/packages/chunks/storage-sweep.service.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createPackageRecord, keysUnder as keysIn, packFiles, putPart, uploadPackage } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { downloadUrl, fetchBytes, sha256Hex } from './packages-downloads-support.ts';

let server: TestServer;
let owner: TestUser;
let project: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server);
  project = await createProject(server, owner);
});
afterAll(() => server?.stop());

const keysUnder = (prefix: string) => keysIn(server, prefix);
const nothingSwept = { chunks: 0, parts: 0, packageBlobs: 0, expiredUploads: 0, storedChunks: 0, emptyPacks: 0, repackedPacks: 0, retiredPacks: 0, packBlobs: 0 };
const later = () => Date.now() + 2 * 3600_000; // past the sweep's one-hour grace for everything written now

test('the storage sweep is queued when the server starts (one row however many processes start)', async () => {
  const queued = await server.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'storage_sweep'), eq(jobs.status, 'queued')));
  expect(queued).toHaveLength(1);
  expect(queued[0]!.dedupeKey).toBe('storage_sweep');
  expect(queued[0]!.runAt.getTime()).toBeGreaterThan(Date.now());
});

test('crash leftovers and expired uploads are removed; what packages use stays and still downloads', async () => {
  const files = { 'game.bin': new Uint8Array(300_000).map((_, i) => (i * 31) % 253), 'readme.txt': 'hello\n' };
  const ready = await uploadPackage(server, owner, project.id, files, { compression: 1 });
  const zipUrl = await downloadUrl(server, `/api/projects/${project.id}/packages/${ready.id}/download?filter=zip`, owner.token);
  const zipBefore = sha256Hex((await fetchBytes(zipUrl)).bytes);
  const packsBefore = await keysUnder('packs/');
  expect(packsBefore.length).toBeGreaterThan(0);
  expect(await keysUnder('chunks/')).toEqual([]);

  // What crashes leave: legacy chunk blobs a dead finalize of an older server stored, parts after a
  // committed finalize, blobs of a deleted package.
  const orphanChunks = [`chunks/zstd/${'ab'.repeat(32)}-10`, `chunks/raw/${'cd'.repeat(32)}`];
  for (const key of orphanChunks) await server.deps.storage.put(key, new Uint8Array(10));
  // Packs: one written and never recorded, one recorded whose chunk no package lists (its finalize
  // died before the commit), one retired by a repack.
  await server.deps.storage.put(`packs/${'0'.repeat(24)}`, new Uint8Array(10));
  await server.deps.storage.put(`packs/${'1'.repeat(24)}`, new Uint8Array(10));
  await server.deps.db.insert(packs).values({ id: '1'.repeat(24), size: 10 });
  await server.deps.db.insert(storedChunks).values({ compression: 0, hash: 'ef'.repeat(32), compressedSize: 10, packId: '1'.repeat(24), offset: 0, crc32: 0 });
  await server.deps.storage.put(`packs/${'2'.repeat(24)}`, new Uint8Array(10));
  await server.deps.db.insert(packs).values({ id: '2'.repeat(24), size: 10, retiredAt: new Date() });
  await server.deps.storage.put(`uploads/${ready.id}/0`, new Uint8Array(5));
  await server.deps.storage.put('uploads/ghost-package/3', new Uint8Array(5));
  await server.deps.storage.put('packages/ghost-package/index', new Uint8Array(5));

  // An upload whose token expired over an hour ago (nobody can finish it) and one still under way.
  const archive = await packFiles(server, { 'a.txt': 'expired\n' });
  const expired = await createPackageRecord(server, owner, project.id, { size: archive.length, tags: [], entrypoint: null, basePackage: null });
  expect((await putPart(expired.uploadInfo, 0, archive)).status).toBe(200);
  await server.deps.db.update(packages).set({ uploadExpiresAt: new Date(Date.now() - 2 * 3600_000) }).where(eq(packages.id, expired.id));
  const live = await createPackageRecord(server, owner, project.id, { size: archive.length, tags: [], entrypoint: null, basePackage: null });
  expect((await putPart(live.uploadInfo, 0, archive)).status).toBe(200);

  // Within the grace period nothing written just now is touched (a finalize may be writing it).
  const early = await sweepStorage(server.deps);
  expect(early).toEqual({ ...nothingSwept, expiredUploads: 1 });

  const result = await sweepStorage(server.deps, later());
  expect(result.chunks).toBe(2);
  expect(result).toMatchObject({ storedChunks: 1, emptyPacks: 1, repackedPacks: 0, retiredPacks: 1, packBlobs: 1 });
  expect((await keysUnder('packs/')).sort()).toEqual(packsBefore.sort());
  expect(await server.deps.db.select().from(packs).where(eq(packs.id, '1'.repeat(24)))).toEqual([]);
  expect(result.packageBlobs).toBe(1);
  expect(result.expiredUploads).toBe(0); // already deleted by the first pass
  expect(result.parts).toBeGreaterThanOrEqual(2); // the ready package's and the ghost's (the expired one's may be gone already)
  expect(await keysUnder('chunks/')).toEqual([]);
  expect(await keysUnder(`uploads/${ready.id}/`)).toEqual([]);
  expect(await keysUnder('uploads/ghost-package/')).toEqual([]);
  expect(await keysUnder('packages/ghost-package/')).toEqual([]);
  expect(await keysUnder(`uploads/${live.id}/`)).toEqual([`uploads/${live.id}/0`]);
  expect((await server.fetch(`/api/projects/${project.id}/packages/${expired.id}`, { token: owner.token })).status).toBe(404);
  expect((await server.fetch(`/api/projects/${project.id}/packages/${live.id}`, { token: owner.token })).status).toBe(200);
  const deadline = Date.now() + 20_000;
  while ((await keysUnder(`uploads/${expired.id}/`)).length > 0 && Date.now() < deadline) {
    server.deps.jobSignal.notify();
    await Bun.sleep(50);
  }
  expect(await keysUnder(`uploads/${expired.id}/`)).toEqual([]);

  // The ready package is whole: same ZIP, every chunk still there.
  expect(sha256Hex((await fetchBytes(zipUrl)).bytes)).toBe(zipBefore);
  const archiveUrl = await downloadUrl(server, `/api/projects/${project.id}/packages/${ready.id}/download`, owner.token);
  expect((await fetchBytes(archiveUrl)).status).toBe(200);
  // A second sweep finds nothing more.
  expect(await sweepStorage(server.deps, later())).toEqual(nothingSwept);
});
