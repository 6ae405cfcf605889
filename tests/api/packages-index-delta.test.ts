import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { availableDictionaryValue, decodeIndexDelta, DCZ_MAGIC } from '../../src/shared/archive/dictionary-index.ts';
import { decodeIndex, fromHex } from '../../src/shared/archive/index.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { indexDeltaTuning } from '../../src/server/domains/packages/downloads/index-delta.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { downloadUrl, fetchBytes, sha256Hex, uploadTree, type TreeSpec } from './packages-downloads-support.ts';

/**
 * Index deltas (RFC 9842 dcz) on /api/files/{package}/index/...: a client holding an older index of the
 * same project gets the new one compressed against it; everything else gets the plain index.
 */
let server: TestServer;
let owner: TestUser;
let project: TestProject;
let other: TestProject;
let v1: Package;
let v2: Package;
let foreign: Package;
let index1: Uint8Array;
let index2: Uint8Array;
let indexUrl2: string;

/** 400 small files (an index of ≈ 40 KiB); `changed` files get other content. */
function build(changed: number[], extra: Record<string, string> = {}): TreeSpec {
  const files: TreeSpec['files'] = {};
  for (let i = 0; i < 400; i++) {
    files[`data/set${i % 8}/file_${String(i).padStart(4, '0')}.txt`] = { content: `file ${i}${changed.includes(i) ? ' changed' : ''}\n`.repeat(20) };
  }
  for (const [path, content] of Object.entries(extra)) files[path] = { content };
  return { files };
}

const indexUrlOf = (pkg: Package, projectId = project.id) => downloadUrl(server, `/api/projects/${projectId}/packages/${pkg.id}/download?filter=index`, owner.token);
const offer = (hashHex: string, acceptEncoding = 'gzip, dcz') => ({ 'accept-encoding': acceptEncoding, 'available-dictionary': availableDictionaryValue(fromHex(hashHex)) });

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server);
  project = await createProject(server, owner);
  other = await createProject(server, owner);
  v1 = (await uploadTree(server, owner, project.id, build([]))).pkg;
  v2 = (await uploadTree(server, owner, project.id, build([3, 150, 301], { 'new.txt': 'new file\n' }))).pkg;
  foreign = (await uploadTree(server, owner, other.id, build([7, 8]))).pkg;
  index1 = (await fetchBytes(await indexUrlOf(v1))).bytes;
  indexUrl2 = await indexUrlOf(v2);
  index2 = (await fetchBytes(indexUrl2)).bytes;
  expect(sha256Hex(index2)).toBe(v2.indexHash!);
});
afterAll(() => server?.stop());

async function expectPlain(init: RequestInit, url = indexUrl2) {
  const { status, bytes, headers } = await fetchBytes(url, init);
  expect(status).toBe(200);
  expect(headers.get('content-encoding')).toBeNull();
  expect(headers.get('vary')).toBe('Accept-Encoding, Available-Dictionary');
  expect(headers.get('content-length')).toBe(String(index2.length));
  expect(bytes).toEqual(index2);
}

describe('index deltas', () => {
  test('a base of the same project: dcz against it, decoding to the exact new index', async () => {
    const { status, bytes, headers } = await fetchBytes(indexUrl2, { headers: offer(v1.indexHash!) });
    expect(status).toBe(200);
    expect(headers.get('content-encoding')).toBe('dcz');
    expect(headers.get('vary')).toBe('Accept-Encoding, Available-Dictionary');
    expect(headers.get('etag')).toBe(`"${v2.indexHash}-index-dcz-${v1.indexHash}"`);
    expect(headers.get('content-length')).toBe(String(bytes.length));
    expect(bytes.subarray(0, 8)).toEqual(DCZ_MAGIC);
    expect(bytes.length).toBeLessThan(index2.length / 10);
    const decoded = await decodeIndexDelta(bytes, index1, fromHex(v1.indexHash!));
    expect(decoded).toEqual(index2);
    expect(sha256Hex(decoded)).toBe(v2.indexHash!);
    expect(() => decodeIndex(decoded)).not.toThrow();
    // The same index as base: a delta of a few bytes.
    const same = await fetchBytes(indexUrl2, { headers: offer(v2.indexHash!) });
    expect(same.headers.get('content-encoding')).toBe('dcz');
    expect(same.bytes.length).toBeLessThan(100);
    expect(await decodeIndexDelta(same.bytes, index2, fromHex(v2.indexHash!))).toEqual(index2);
  });

  test('HEAD, Range and If-None-Match work on the encoded bytes', async () => {
    const whole = await fetchBytes(indexUrl2, { headers: offer(v1.indexHash!) });
    const head = await fetch(indexUrl2, { method: 'HEAD', headers: offer(v1.indexHash!) });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-encoding')).toBe('dcz');
    expect(head.headers.get('content-length')).toBe(String(whole.bytes.length));
    const part = await fetchBytes(indexUrl2, { headers: { ...offer(v1.indexHash!), range: 'bytes=0-39' } });
    expect(part.status).toBe(206);
    expect(part.bytes).toEqual(whole.bytes.subarray(0, 40));
    const cached = await fetch(indexUrl2, { headers: { ...offer(v1.indexHash!), 'if-none-match': whole.headers.get('etag')! } });
    expect(cached.status).toBe(304);
    // The plain index's validator does not match the delta.
    const stale = await fetchBytes(indexUrl2, { headers: { ...offer(v1.indexHash!), 'if-none-match': `"${v2.indexHash}-index"` } });
    expect(stale.status).toBe(200);
  });

  test('the plain index: unknown hash, another project’s index, no dcz in Accept-Encoding', async () => {
    await expectPlain({});
    await expectPlain({ headers: offer('ab'.repeat(32)) });
    // The server holds that index, but in another project: never used (nor revealed).
    await expectPlain({ headers: offer(foreign.indexHash!) });
    await expectPlain({ headers: offer(v1.indexHash!, 'gzip, br, zstd') });
    await expectPlain({ headers: offer(v1.indexHash!, 'dcz;q=0') });
    await expectPlain({ headers: offer(v1.indexHash!, '*') });
    await expectPlain({ headers: { 'available-dictionary': availableDictionaryValue(fromHex(v1.indexHash!)) } });
    // The other project's index URL offered this project's base: plain too.
    const foreignUrl = await indexUrlOf(foreign, other.id);
    const { bytes, headers } = await fetchBytes(foreignUrl, { headers: offer(v1.indexHash!) });
    expect(headers.get('content-encoding')).toBeNull();
    expect(sha256Hex(bytes)).toBe(foreign.indexHash!);
  });

  test('malformed and huge Available-Dictionary values: the plain index, never an error', async () => {
    const value = availableDictionaryValue(fromHex(v1.indexHash!));
    for (const bad of [
      v1.indexHash!,
      value.slice(1),
      `:${Buffer.from(fromHex(v1.indexHash!).subarray(1)).toString('base64')}:`,
      value.replace(/[A-Z]/, '!'),
      `${value}, ${value}`,
      `:${'A'.repeat(8000)}:`,
      'x'.repeat(12_000),
    ]) {
      await expectPlain({ headers: { 'accept-encoding': 'dcz', 'available-dictionary': bad } });
    }
    await expectPlain({ headers: { 'accept-encoding': `${'gzip;q=0.5, '.repeat(1000)}dcz`, 'available-dictionary': value } });
  });

  test('other kinds ignore the offer', async () => {
    const archiveUrl = await downloadUrl(server, `/api/projects/${project.id}/packages/${v2.id}/download`, owner.token);
    const { headers } = await fetchBytes(archiveUrl, { headers: offer(v1.indexHash!) });
    expect(headers.get('content-encoding')).toBeNull();
  });

  test('large deltas are kept in the download cache and served from it', async () => {
    const saved = indexDeltaTuning.cacheFromBytes;
    indexDeltaTuning.cacheFromBytes = 0;
    try {
      const first = await fetchBytes(indexUrl2, { headers: offer(v1.indexHash!) });
      expect(first.headers.get('content-encoding')).toBe('dcz');
      const cached = readdirSync(server.deps.config.downloads.cacheDir).filter((name) => name.startsWith(`${v2.id}-`) && name.includes('-dcz-'));
      expect(cached).toHaveLength(1);
      const second = await fetchBytes(indexUrl2, { headers: offer(v1.indexHash!) });
      expect(second.bytes).toEqual(first.bytes);
      expect(second.headers.get('content-length')).toBe(String(first.bytes.length));
      expect(await decodeIndexDelta(second.bytes, index1, fromHex(v1.indexHash!))).toEqual(index2);
    } finally {
      indexDeltaTuning.cacheFromBytes = saved;
    }
  });
});
