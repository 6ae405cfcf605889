/**
 * A full disk (issue 28, items 2 and 5): the real server's blobs and download cache on a small tmpfs
 * (the database stays off it: in memory, or PostgreSQL). A write that meets the full disk answers at
 * once with 507 out_of_storage and its sentence, logs it, holds nothing (no descriptor under the disk,
 * no temp file), and the same upload goes on once space is back. The download cache keeps
 * STORAGE_FREE_FLOOR free and gives its files up to blobs.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../src/server/logger.ts';
import { fileCacheBytes } from '../../src/server/storage/index.ts';
import { errorText } from '../../src/client/lib/errors.ts';
import { ApiError, createApiClient, uploadRetry } from '../../src/shared/api/index.ts';
import type { PartDescriptor } from '../../src/shared/schemas/packages.ts';
import { runUploadSession, splitStream, type PackageUploadState } from '../../src/shared/upload/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { photoLike } from '../support/images.ts';
import { noise } from '../support/noise.ts';
import { createPackageRecord, packFiles, putPart, sha1Hex, splitParts, uploadPackage } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.ts';
import { downloadUrl, fetchBytes } from './packages-downloads-support.ts';

const MiB = 1024 * 1024;
const floor = 24 * MiB;
let disk: SmallDisk;
let server: TestServer;
let owner: TestUser;
let project: TestProject;
const logged: { message: string; fields?: Record<string, unknown> }[] = [];
const log: Logger = {
  info: () => {},
  debug: () => {},
  error: (message, fields) => (process.env.SHOW_LOG && console.log(message, fields), logged.push({ message, fields })),
};

beforeAll(async () => {
  disk = mountSmallDisk(128 * MiB);
  server = await startTestServer(
    {
      DATA_DIR: join(disk.dir, 'data'),
      UPLOAD_PART_SIZE: String(4 * MiB),
      PACK_SIZE: String(MiB),
      STORAGE_FREE_FLOOR: String(floor),
      // Nothing writes in the background: the download cache is filled by the downloads asked here.
      JOB_WORKERS: '0',
    },
    { log },
  );
  owner = await registerUser(server);
  project = await createProject(server, owner);
});

afterAll(async () => {
  await server?.stop();
  disk?.unmount();
});

const blobsDir = () => join(disk.dir, 'data', 'blobs');
const cacheDir = () => server.deps.config.downloads.cacheDir;
const tempFiles = () => {
  try {
    return readdirSync(join(blobsDir(), '.tmp'));
  } catch {
    return [];
  }
};

type Upload = { id: string; token: string; uploadUrl: string; parts: Uint8Array[] };

/** A package record and its parts (not sent yet) for `files`. */
async function prepareUpload(files: Record<string, Uint8Array>): Promise<Upload> {
  const archive = await packFiles(server, files);
  const created = await createPackageRecord(server, owner, project.id, { size: archive.length, tags: [], entrypoint: null, basePackage: null });
  return { id: created.id, token: created.uploadInfo.token, uploadUrl: created.uploadInfo.uploadUrl, parts: splitParts(archive, created.uploadInfo.partSize) };
}

function sendPart(upload: Upload, part: number): Promise<Response> {
  return putPart({ uploadUrl: upload.uploadUrl, token: upload.token, partSize: 4 * MiB, partHashAlgorithm: 'sha1' }, part, upload.parts[part]!);
}

function descriptors(upload: Upload): PartDescriptor[] {
  return upload.parts.map((bytes, part) => ({ part, hash: sha1Hex(bytes), size: bytes.byteLength }));
}

function finalize(upload: Upload): Promise<Response> {
  return server.fetch(`/api/projects/${project.id}/packages/${upload.id}/finalize`, { method: 'PUT', token: owner.token, json: { token: upload.token, parts: descriptors(upload) } });
}

async function expectOutOfStorage(response: Response): Promise<void> {
  expect({ status: response.status, body: await response.json() }).toEqual({ status: 507, body: { code: 'out_of_storage', message: 'the server is out of storage space' } });
}

function outOfStorageLines(): typeof logged {
  return logged.filter((line) => line.message === 'out of storage');
}

describe('a full disk while finalize writes packs', () => {
  test('answers 507 out_of_storage with a log line, holds nothing, and the same finalize succeeds once space is back', async () => {
    const upload = await prepareUpload({ 'a.bin': noise(10 * MiB, 281), 'b.bin': noise(10 * MiB, 282) });
    for (let part = 0; part < upload.parts.length; part++) expect((await sendPart(upload, part)).status).toBe(200);
    const linesBefore = outOfStorageLines().length;
    const filesBefore = disk.openFiles();
    // Room for a few of its twenty 1 MiB packs, not for all of them.
    disk.fill(5 * MiB);

    const refused = await finalize(upload);
    await expectOutOfStorage(refused);
    const lines = outOfStorageLines().slice(linesBefore);
    expect(lines.length).toBe(1);
    expect(lines[0]!.fields).toMatchObject({ method: 'PUT', path: `/api/projects/${project.id}/packages/${upload.id}/finalize` });
    expect(String(lines[0]!.fields?.error)).toContain('ENOSPC');
    expect(disk.openFiles()).toEqual(filesBefore);
    expect(tempFiles()).toEqual([]);
    const pending = await server.fetch(`/api/projects/${project.id}/packages/${upload.id}`, { token: owner.token });
    expect(((await pending.json()) as { status: string }).status).toBe('uploading');

    disk.unfill();
    const retried = await finalize(upload);
    expect(retried.status).toBe(200);
    expect(((await retried.json()) as { status: string }).status).toBe('ready');
    const zip = await fetchBytes(await downloadUrl(server, `/api/projects/${project.id}/packages/${upload.id}/download?filter=zip`, owner.token));
    expect(zip.status).toBe(200);
    expect(zip.bytes.byteLength).toBeGreaterThan(20 * MiB);
    await server.deps.fileCache.forget(upload.id); // the cases below start with an empty cache
  }, 120_000);

  test('tRPC packages.finalize answers 507 with out_of_storage in its data', async () => {
    const upload = await prepareUpload({ 'f.bin': noise(6 * MiB, 287) });
    for (let part = 0; part < upload.parts.length; part++) expect((await sendPart(upload, part)).status).toBe(200);
    disk.fill(2 * MiB);
    const response = await server.fetch('/trpc/packages.finalize', { method: 'POST', token: owner.token, json: { project: project.id, package: upload.id, token: upload.token, parts: descriptors(upload) } });
    const body = (await response.json()) as { error: { message: string; data: { code: string; httpStatus: number } } };
    expect({ status: response.status, message: body.error.message, code: body.error.data.code, httpStatus: body.error.data.httpStatus }).toEqual({
      status: 507,
      message: 'the server is out of storage space',
      code: 'out_of_storage',
      httpStatus: 507,
    });
    expect(disk.openFiles()).toEqual([]);
    disk.unfill();
    expect((await finalize(upload)).status).toBe(200);
  }, 120_000);
});

describe('a full disk while a part is uploaded', () => {
  test('answers 507 out_of_storage, keeps no temp file, and the same part is taken once space is back', async () => {
    const upload = await prepareUpload({ 'c.bin': noise(3 * MiB, 283) });
    const linesBefore = outOfStorageLines().length;
    disk.fill(MiB);

    await expectOutOfStorage(await sendPart(upload, 0));
    expect(outOfStorageLines().length).toBe(linesBefore + 1);
    expect(disk.openFiles()).toEqual([]);
    expect(tempFiles()).toEqual([]);

    disk.unfill();
    expect((await sendPart(upload, 0)).status).toBe(200);
    expect((await finalize(upload)).status).toBe(200);
    // And another upload after it, whole.
    expect((await uploadPackage(server, owner, project.id, { 'd.bin': noise(2 * MiB, 284) })).status).toBe('ready');
    expect(disk.openFiles()).toEqual([]);
  }, 120_000);
});

describe('a full disk while an image pasted into a description is stored', () => {
  test('its part and its finalize answer 507 out_of_storage; both go through once there is room', async () => {
    const bytes = await photoLike(640, 480, { seed: 289 });
    const created = await server.fetch(`/api/projects/${project.id}/content/images`, { method: 'POST', token: owner.token, json: { size: bytes.length, width: 640, height: 480, scale: 100 } });
    expect(created.status).toBe(200);
    const { id, uploadInfo } = (await created.json()) as { id: string; uploadInfo: { uploadUrl: string; token: string; partSize: number; partHashAlgorithm: 'sha1' } };
    const finalizeImage = () =>
      server.fetch(`/api/projects/${project.id}/content/images/${id}/finalize`, { method: 'PUT', json: { token: uploadInfo.token, parts: [{ part: 0, hash: sha1Hex(bytes), size: bytes.length }] } });

    disk.fill(0);
    await expectOutOfStorage(await putPart(uploadInfo, 0, bytes));
    disk.unfill();
    expect((await putPart(uploadInfo, 0, bytes)).status).toBe(200);
    disk.fill(0);
    await expectOutOfStorage(await finalizeImage());
    expect(disk.openFiles()).toEqual([]);
    expect(tempFiles()).toEqual([]);
    disk.unfill();
    const finalized = await finalizeImage();
    expect(finalized.status).toBe(200);
  }, 120_000);
});

describe('the upload session of the browser and the command line', () => {
  test('ends errored with out_of_storage after one try of each part, and the page says why', async () => {
    const archive = await packFiles(server, { 'g.bin': noise(3 * MiB, 288) });
    const retries: string[] = [];
    let last: PackageUploadState | undefined;
    const api = createApiClient({ baseUrl: server.url, auth: () => owner.token, retry: { ...uploadRetry, delayMs: 10 } });
    disk.fill(MiB);
    const failure = await runUploadSession({
      api,
      project: project.id,
      package: { tags: [], entrypoint: null, basePackage: null },
      prepare: async () => ({ size: archive.length, patchSize: null, parts: (partSize) => splitStream(new Blob([archive as Uint8Array<ArrayBuffer>]).stream(), partSize) }),
      onPartRetry: (part, failedTry, error) => retries.push(`${part}/${failedTry}: ${error.code}`),
      onState: (state) => (last = state),
    }).catch((error: unknown) => error);
    disk.unfill();
    expect(failure).toBeInstanceOf(ApiError);
    expect({ code: (failure as ApiError).code, status: (failure as ApiError).status, message: (failure as ApiError).message }).toEqual({ code: 'out_of_storage', status: 507, message: 'the server is out of storage space' });
    expect(retries).toEqual([]);
    expect({ status: last?.status, error: last?.error }).toEqual({ status: 'errored', error: 'out_of_storage' });
    expect(errorText({ code: last!.error! })).toBe('the server is out of storage space');
  }, 120_000);
});

describe('the download cache and STORAGE_FREE_FLOOR', () => {
  test('a ZIP that would pass the floor is sent uncached; one that fits is cached, and given up when blobs need the room', async () => {
    // Over 16 MiB: such a download is made into the cache (http/range.ts).
    const pkg = await uploadPackage(server, owner, project.id, { 'big.bin': noise(18 * MiB, 285) });
    const zipUrl = () => downloadUrl(server, `/api/projects/${project.id}/packages/${pkg.id}/download?filter=zip`, owner.token);
    expect(fileCacheBytes(cacheDir())).toBe(0);

    disk.fill(floor + 8 * MiB);
    const freeBefore = disk.free();
    const uncached = await fetchBytes(await zipUrl());
    expect(uncached.status).toBe(200);
    expect(uncached.bytes.byteLength).toBeGreaterThan(18 * MiB);
    expect(readdirSync(cacheDir())).toEqual([]);
    expect(disk.free()).toBe(freeBefore);

    disk.unfill();
    const cached = await fetchBytes(await zipUrl());
    expect(cached.bytes).toEqual(uncached.bytes);
    // The file may still be being finished after a reply that could not wait for it.
    while (fileCacheBytes(cacheDir()) === 0 || readdirSync(cacheDir()).some((name) => name.includes('.partial-'))) await Bun.sleep(20);
    expect(fileCacheBytes(cacheDir())).toBe(cached.bytes.byteLength);

    // Blobs need the room: a 4 MiB part with 2 MiB free fits only once the cache gave its file up.
    disk.fill(2 * MiB);
    const upload = await prepareUpload({ 'e.bin': noise(5 * MiB, 286) });
    expect((await sendPart(upload, 0)).status).toBe(200);
    expect(fileCacheBytes(cacheDir())).toBe(0);
    const again = await fetchBytes(await zipUrl());
    expect(again.bytes).toEqual(uncached.bytes);
    disk.unfill();
  }, 120_000);
});
