import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { S3Client } from 'bun';
import { AppError } from '../../../src/server/errors.ts';
import { createBlobStore, createS3BlobStore, type S3BlobStoreOptions } from '../../../src/server/storage/index.ts';
import { startS3Server, type TestS3Server } from '../../support/s3-server.ts';
import {
  collect,
  describeBlobStoreContract,
  expectAppError,
  randomBytes,
  readText,
  sha256,
  unknownLengthStream,
} from './blob-store-contract.ts';

let server: TestS3Server;
let raw: S3Client;

beforeAll(async () => {
  server = await startS3Server();
  raw = new S3Client({
    endpoint: server.endpoint,
    bucket: server.bucket,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    region: 'us-east-1',
  });
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

/** A store over the test bucket under a fresh key prefix, so every test starts empty. */
function openS3Store(options: Partial<S3BlobStoreOptions> = {}) {
  const prefix = `t-${crypto.randomUUID()}/`;
  const store = createS3BlobStore({
    bucket: server.bucket,
    prefix,
    endpoint: server.endpoint,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    ...options,
  });
  return { store, prefix };
}

describeBlobStoreContract('s3', async (options) => {
  const { store } = openS3Store(options?.listPageSize ? { listPageSize: options.listPageSize } : {});
  return { store, cleanup: async () => {} };
});

describe('s3 store', () => {
  test('list pages past 1000 keys with the default page size', async () => {
    const { store, prefix } = openS3Store();
    const keys = Array.from({ length: 2003 }, (_, index) => `many/${index.toString(36).padStart(3, '0')}`);
    await server.seed(keys.slice(1).map((key) => prefix + key));
    await store.put(keys[0]!, 'x'); // one through the store too: seeded objects are ordinary ones
    const listed = await collect(store.list('many/'));
    expect(listed).toHaveLength(2003);
    expect(listed.map((entry) => entry.key)).toEqual([...keys].sort());
    expect(listed.every((entry) => entry.size === 1)).toBe(true);
    // Three ListObjectsV2 pages of at most 1000 keys, the later two with continuation tokens.
    const listCalls = (await server.readLog()).split('\n').filter((line) => line.includes(`prefix=${prefix}many/`));
    expect(listCalls).toHaveLength(3);
    expect(listCalls.filter((line) => line.includes('continuation-token='))).toHaveLength(2);
    expect(listCalls.every((line) => line.includes('max-keys=1000'))).toBe(true);
  });

  test('keys live under the store prefix in the bucket', async () => {
    const { store, prefix } = openS3Store();
    await store.put('chunks/ab/cd', 'payload');
    expect(await raw.file(`${prefix}chunks/ab/cd`).text()).toBe('payload');
    await raw.write(`${prefix}../outside`, 'not a valid key, but S3 takes it');
    await raw.write(`${prefix.slice(0, -1)}-sibling/x`, 'another install');
    expect(await collect(store.list('chunks/'))).toEqual([{ key: 'chunks/ab/cd', size: 7 }]);
    expect((await collect(store.list(''))).map((entry) => entry.key)).toEqual(['../outside', 'chunks/ab/cd']);
  });

  test('a streamed body of unknown length is uploaded in parts', async () => {
    const { store, prefix } = openS3Store({ partSize: 5 * 1024 * 1024 });
    const source = unknownLengthStream(12 * 1024 * 1024);
    expect(await store.put('uploads/multi', source.stream)).toEqual({ size: 12 * 1024 * 1024 });
    // A multipart object's ETag is "<md5 of part md5s>-<part count>".
    expect((await raw.stat(`${prefix}uploads/multi`)).etag).toMatch(/-3"?$/);
    expect(await server.readLog()).toContain(`POST /${server.bucket}/${prefix}uploads/multi?uploads`);
    const stored = new Uint8Array(await raw.file(`${prefix}uploads/multi`).arrayBuffer());
    expect(sha256(stored)).toBe(source.digest());
  }, 20_000);

  test('a failing stream aborts its multipart upload', async () => {
    const { store, prefix } = openS3Store({ partSize: 5 * 1024 * 1024, queueSize: 1 });
    const source = unknownLengthStream(30 * 1024 * 1024, { failAfter: 16 * 1024 * 1024 });
    await expect(store.put('uploads/broken', source.stream)).rejects.toThrow('source broke');
    expect(await store.stat('uploads/broken')).toBeUndefined();
    expect(await server.readLog()).toContain(`POST /${server.bucket}/${prefix}uploads/broken?uploads`);
    // Bun rejects the put first and sends AbortMultipartUpload right after: wait for it.
    const pendingUploads = async () => (await fetch(`${server.endpoint}/${server.bucket}?uploads`)).text();
    const deadline = Date.now() + 5_000;
    while ((await pendingUploads()).includes(`${prefix}uploads/broken`) && Date.now() < deadline) await Bun.sleep(25);
    expect(await pendingUploads()).not.toContain(`${prefix}uploads/broken`);
    expect(await server.readLog()).toMatch(new RegExp(`DELETE /${server.bucket}/${prefix}uploads/broken\\?uploadId=`));
  }, 20_000);

  test('presigned URLs reach the blob, with ranges, and carry the options', async () => {
    const { store } = openS3Store();
    await store.put('downloads/game.zip', 'zip bytes here');
    const url = store.presign!('downloads/game.zip', {
      expiresIn: 600,
      contentDisposition: 'attachment; filename="game.zip"',
    });
    const parsed = new URL(url);
    expect(parsed.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(parsed.searchParams.get('response-content-disposition')).toBe('attachment; filename="game.zip"');
    expect(parsed.searchParams.get('X-Amz-Credential')).toContain('/us-east-1/s3/');
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(await whole.text()).toBe('zip bytes here');
    const ranged = await fetch(url, { headers: { range: 'bytes=4-8' } });
    expect(ranged.status).toBe(206);
    expect(await ranged.text()).toBe('bytes');
    const upload = await fetch(store.presign!('downloads/put.bin', { method: 'PUT' }), { method: 'PUT', body: 'up' });
    expect(upload.ok).toBe(true);
    expect(await readText(await store.get('downloads/put.bin'))).toBe('up');
  });

  test('createBlobStore reads s3://bucket/prefix and the S3_* variables', async () => {
    const store = createBlobStore(`s3://${server.bucket}/installs/one`, { dataDir: '/nonexistent', env: server.env });
    expect(store.kind).toBe('s3');
    await store.put('probe', 'via url');
    expect(await raw.file('installs/one/probe').text()).toBe('via url');
    expect(new URL(store.presign!('probe')).searchParams.get('X-Amz-Credential')).toContain('/us-east-1/s3/');
    const other = createBlobStore(`s3://${server.bucket}`, { dataDir: '/x', env: { ...server.env, S3_REGION: 'eu-west-3' } });
    expect(new URL(other.presign!('installs/one/probe')).searchParams.get('X-Amz-Credential')).toContain('/eu-west-3/s3/');
    expect(await readText(await other.get('installs/one/probe'))).toBe('via url');
  });

  test('S3_VIRTUAL_HOSTED_STYLE puts the bucket in the host name', async () => {
    const env = {
      ...server.env,
      S3_ENDPOINT: server.endpoint.replace('127.0.0.1', 'localhost'),
      S3_VIRTUAL_HOSTED_STYLE: 'true',
    };
    const prefix = `vh-${crypto.randomUUID()}`;
    const store = createBlobStore(`s3://${server.bucket}/${prefix}`, { dataDir: '/x', env });
    await store.put('key', 'hosted');
    expect(await readText(await store.get('key'))).toBe('hosted');
    expect(await raw.file(`${prefix}/key`).text()).toBe('hosted');
    expect(new URL(store.presign!('key')).hostname).toBe(`${server.bucket}.localhost`);
    // The request named the bucket in the Host header only, not in the path.
    expect(await server.readLog()).toContain(`"PUT /${prefix}/key`);
  });

  test('a missing bucket is an error, never a missing blob', async () => {
    const store = createS3BlobStore({
      bucket: 'no-such-bucket',
      endpoint: server.endpoint,
      accessKeyId: server.accessKeyId,
      secretAccessKey: server.secretAccessKey,
    });
    let caught: unknown;
    await store.get('anything').catch((error: unknown) => (caught = error));
    expect(caught).toBeDefined();
    expect(caught).not.toBeInstanceOf(AppError);
    expect(String((caught as { code?: unknown }).code)).toBe('NoSuchBucket');
    await expect(store.put('anything', 'x')).rejects.toThrow();
  });

  test('a big Blob body (known size) round trips', async () => {
    const { store, prefix } = openS3Store();
    const bytes = randomBytes(6 * 1024 * 1024 + 1);
    expect(await store.put('images/big.png', new Blob([bytes]), { contentType: 'image/png' })).toEqual({
      size: bytes.byteLength,
    });
    const info = await raw.stat(`${prefix}images/big.png`);
    expect(info.type).toBe('image/png');
    expect(info.size).toBe(bytes.byteLength);
    await expectAppError(store.get('images/missing.png'), 'not_found');
  });
});
