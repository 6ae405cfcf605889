import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { crc32 } from 'node:zlib';
import { fromHex, readAllFiles, readArchive, walkEntries } from '../../src/shared/archive/index.ts';
import { readStoredZipCrcs, zipCrcKey } from '../../src/server/domains/packages/downloads/zip/crc.ts';
import { openArchiveStream, readPackageIndex } from '../../src/server/domains/packages/records/package-content.ts';
import { jobs } from '../../src/server/db/schema/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createPackageRecord, packFiles, putPart, splitParts, uploadPackage, waitForJob } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailure } from '../support/trpc-failure.ts';

let server: TestServer;
let owner: TestUser;
let project: TestProject;

beforeAll(async () => {
  server = await startTestServer({ UPLOAD_PART_SIZE: '8192', JOB_POLL_MS: '50' });
  owner = await registerUser(server);
  project = await createProject(server, owner);
});
afterAll(() => server.stop());

const big = (seed: number) => Uint8Array.from({ length: 120_000 }, (_, i) => (i * 31 + seed * (i >> 12)) & 255);

async function uploadRaw(archive: Uint8Array, basePackage: string | null) {
  const created = await createPackageRecord(server, owner, project.id, { size: archive.length, tags: [], basePackage });
  const parts = await Promise.all(splitParts(archive, 8192).map(async (bytes, i) => (await putPart(created.uploadInfo, i, bytes)).json()));
  const response = await server.fetch(`/api/projects/${project.id}/packages/${created.id}/finalize`, {
    method: 'PUT',
    token: owner.token,
    json: { token: created.uploadInfo.token, parts },
  });
  return { id: created.id, response };
}

describe('patches and resolve', () => {
  test('a patch against its base resolves to a complete ready package', async () => {
    const base = await uploadPackage(server, owner, project.id, { 'game.bin': big(1), 'readme.txt': 'v1' });
    const patchArchive = await packFiles(server, { 'game.bin': big(1), 'readme.txt': 'v2', 'new.txt': 'added' }, { basePackage: base.id });
    const { id, response } = await uploadRaw(patchArchive, base.id);
    expect(response.status).toBe(200);
    const finalized = await response.json();
    expect(finalized.status).toBe('finalized');
    expect(await server.deps.storage.stat(zipCrcKey(id))).toBeUndefined(); // its base's chunks are needed too
    expect(patchArchive.length).toBeLessThan(60_000);
    // Not ready yet: a version cannot use it.
    const early = await server.fetch(`/api/projects/${project.id}/versions`, { method: 'POST', token: owner.token, json: { title: 'early', packages: [id] } });
    expect(early.status).toBe(409);
    expect((await early.json()).code).toBe('not_finalized');
    const resolve = await server.fetch(`/api/projects/${project.id}/packages/${id}/resolve`, { method: 'POST', token: owner.token });
    const { job, token } = await resolve.json();
    expect(token).toStartWith('cj_');
    const done = await waitForJob(server, job);
    expect(done.output).toEqual({ package: id });
    const pkg = await (await server.fetch(`/api/projects/${project.id}/packages/${id}`, { token: owner.token })).json();
    expect(pkg).toMatchObject({ status: 'ready', basePackage: base.id });
    // Resolve stored the ZIP's CRC-32s from the chunks' (its own and its base's), in index order.
    const index = await readPackageIndex(server.deps, id);
    const crcs = await readStoredZipCrcs(server.deps, id, index, fromHex(pkg.indexHash));
    const contents: Record<string, Uint8Array> = { 'game.bin': big(1), 'new.txt': new TextEncoder().encode('added'), 'readme.txt': new TextEncoder().encode('v2') };
    const expected = [...walkEntries(index.root)].flatMap(({ entry, parts }) => (entry.kind === 'file' ? [crc32(contents[parts.join('/')]!) >>> 0] : []));
    expect(crcs && [...crcs]).toEqual(expected);
    const files = await readAllFiles(await readArchive(await openArchiveStream(server.deps, id)));
    expect(files.get('game.bin')).toEqual(big(1));
    expect(new TextDecoder().decode(files.get('new.txt'))).toBe('added');
    // The base can go once no version lists it and the patch is ready; the patch keeps its chunks.
    const version = await server.fetch(`/api/projects/${project.id}/versions`, { method: 'POST', token: owner.token, json: { title: 'v', packages: [id] } });
    expect(version.status).toBe(200);
    expect((await server.fetch(`/api/projects/${project.id}/packages/${base.id}`, { method: 'DELETE', token: owner.token })).status).toBe(200);
    // The base's collection has run (not a guess at how long it takes): what it deleted is not the patch's.
    const [collection] = await server.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'chunk_gc'), eq(jobs.dedupeKey, `package:${base.id}`)));
    expect(await waitForJob(server, collection!.id)).toMatchObject({ status: 'succeeded' });
    const again = await readAllFiles(await readArchive(await openArchiveStream(server.deps, id)));
    expect(again.get('game.bin')).toEqual(big(1));
    // Resolving a ready package again answers at once; the helper factory does it all.
    const patched = await uploadPackage(server, owner, project.id, { 'game.bin': big(2) }, { basePackage: id });
    expect(patched.status).toBe('ready');
  });

  test('unexpected_patch and not_patch', async () => {
    const base = await uploadPackage(server, owner, project.id, { 'a.bin': big(3) });
    const other = await uploadPackage(server, owner, project.id, { 'b.bin': big(4) });
    const patch = await packFiles(server, { 'a.bin': big(3), 'c.txt': 'c' }, { basePackage: base.id });
    const noBase = await uploadRaw(patch, null);
    expect(noBase.response.status).toBe(409);
    expect((await noBase.response.json()).code).toBe('unexpected_patch');
    const wrongBase = await uploadRaw(patch, other.id);
    expect((await wrongBase.response.json()).code).toBe('unexpected_patch');
    const full = await packFiles(server, { 'a.bin': big(3) });
    const notPatch = await uploadRaw(full, base.id);
    expect((await notPatch.response.json()).code).toBe('not_patch');
    const resolveFull = await server.fetch(`/api/projects/${project.id}/packages/${other.id}/resolve`, { method: 'POST', token: owner.token });
    expect((await resolveFull.json()).code).toBe('not_patch');
    const failure = await trpcFailure(server.trpc(owner.token).packages.resolve.mutate({ project: project.id, package: other.id }));
    expect(failure.code).toBe('not_patch');
    const unfinished = await server.fetch(`/api/projects/${project.id}/packages/${notPatch.id}/resolve`, { method: 'POST', token: owner.token });
    expect((await unfinished.json()).code).toBe('not_finalized');
  });
});
