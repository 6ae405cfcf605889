import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeIndex, listUniqueChunks, toHex } from '../../src/shared/archive/index.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { ChunkCache, planRuns, type Fetcher, type PackageLocation } from '../../cloudhost/src/package-cache.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { uploadPackage, type PackageFiles } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { noise } from '../support/noise.ts';

let server: TestServer;
let owner: TestUser;
let project: TestProject;
const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

/** A fetch that counts what really goes to the server (and can drop Range headers, like a server that ignores them). */
function countingFetch(options: { dropRange?: boolean } = {}) {
  const requests: { path: string; range: string | null; status: number }[] = [];
  const fetcher: Fetcher = async (url, init = {}) => {
    const headers = new Headers(init.headers);
    if (options.dropRange) headers.delete('range');
    const response = await fetch(url, { ...init, headers });
    requests.push({ path: new URL(url).pathname.split('/').slice(0, 5).join('/'), range: headers.get('range'), status: response.status });
    return response;
  };
  return { fetcher, requests };
}

async function signedUrl(pkg: Package, filter = ''): Promise<string> {
  const response = await server.fetch(`/api/projects/${project.id}/packages/${pkg.id}/download${filter}`, { token: owner.token });
  expect(response.status).toBe(200);
  return ((await response.json()) as { url: string }).url;
}

async function locationOf(pkg: Package): Promise<PackageLocation> {
  return { archiveUrl: await signedUrl(pkg), indexUrl: await signedUrl(pkg, '?filter=index'), indexHash: pkg.indexHash };
}

function readTree(dir: string, prefix = ''): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) Object.assign(files, readTree(dir, path));
    else files[path] = new Bun.CryptoHasher('sha256').update(readFileSync(join(dir, path))).digest('hex');
  }
  return files;
}

const hashOf = (content: Uint8Array | string) => new Bun.CryptoHasher('sha256').update(content).digest('hex');

function expectExtracted(dir: string, files: PackageFiles): void {
  expect(readTree(dir)).toEqual(Object.fromEntries(Object.entries(files).map(([path, content]) => [path, hashOf(content)])));
}

async function chunkHashes(location: PackageLocation): Promise<Set<string>> {
  const index = decodeIndex(new Uint8Array(await (await fetch(location.indexUrl)).arrayBuffer()));
  return new Set(listUniqueChunks(index).map((chunk) => toHex(chunk.hash)));
}

const version1: PackageFiles = {
  'game.bin': noise(1_500_000, 1),
  'data/level1.dat': noise(900_000, 2),
  'data/level2.dat': noise(700_000, 3),
  'run.sh': '#!/bin/sh\nexec ./game.bin\n',
};
const changedLevel = noise(900_000, 2);
changedLevel.set(noise(4000, 99), 450_000);
const version2: PackageFiles = { ...version1, 'data/level1.dat': changedLevel, 'data/level3.dat': noise(200_000, 4) };

let first: Package;
let second: Package;

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server);
  project = await createProject(server, owner);
  first = await uploadPackage(server, owner, project.id, version1, { tags: ['os:linux', 'arch:x86'], entrypoint: ['run.sh'] });
  second = await uploadPackage(server, owner, project.id, version2, { tags: ['os:linux', 'arch:x86'], entrypoint: ['run.sh'] });
});
afterAll(async () => {
  await server?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the agent’s chunk cache against the real server', () => {
  test('a first session fetches the index and the chunks in a few Range requests; the second fetches nothing; an update only its changed chunks', async () => {
    const cacheDir = tempDir('cloudhost-cache-');
    const counting = countingFetch();
    const cache = new ChunkCache(cacheDir, { fetch: counting.fetcher });
    const location1 = await locationOf(first);

    const prepared = await cache.prepare(location1);
    const chunkCount = (await chunkHashes(location1)).size;
    expect(prepared.stats).toMatchObject({ indexFetched: true, chunksFetched: chunkCount, chunksCached: 0 });
    // One Range request covers neighbouring chunks: far fewer requests than chunks.
    expect(counting.requests.length).toBe(1 + prepared.stats.rangeRequests);
    expect(prepared.stats.rangeRequests).toBeLessThan(chunkCount);
    expect(counting.requests.filter((request) => request.range !== null).every((request) => request.status === 206)).toBe(true);
    const target1 = join(tempDir('cloudhost-session-'), 'game');
    await cache.extract(prepared, target1);
    expectExtracted(target1, version1);

    // A second session of the same build: nothing goes to the server (a new cache object on the same folder, as after a restart).
    counting.requests.length = 0;
    const again = await new ChunkCache(cacheDir, { fetch: counting.fetcher }).prepare(location1);
    expect(counting.requests).toEqual([]);
    expect(again.stats).toMatchObject({ indexFetched: false, rangeRequests: 0, chunksFetched: 0, chunksCached: chunkCount });
    const target2 = join(tempDir('cloudhost-session-'), 'game');
    await cache.extract(again, target2);
    expectExtracted(target2, version1);

    // The update: its index, then only the chunks the first build lacks.
    const location2 = await locationOf(second);
    const oldChunks = await chunkHashes(location1);
    const newChunks = [...(await chunkHashes(location2))].filter((hash) => !oldChunks.has(hash));
    expect(newChunks.length).toBeGreaterThan(0);
    counting.requests.length = 0;
    const update = await cache.prepare(location2);
    expect(update.stats.indexFetched).toBe(true);
    expect(update.stats.chunksFetched).toBe(newChunks.length);
    expect(update.stats.chunksCached).toBe((await chunkHashes(location2)).size - newChunks.length);
    expect(counting.requests.length).toBe(1 + update.stats.rangeRequests);
    expect(update.stats.rangeRequests).toBeLessThanOrEqual(newChunks.length);
    // Far less than the package: the changed region of level1 and the new level3 (plus gaps joined up).
    const packageSize = Object.values(version2).reduce((sum, content) => sum + (typeof content === 'string' ? content.length : content.length), 0);
    expect(update.stats.bytesFetched).toBeLessThan(packageSize / 3);
    const target3 = join(tempDir('cloudhost-session-'), 'game');
    await cache.extract(update, target3);
    expectExtracted(target3, version2);
    // The executable bit comes from the archive (run.sh was not marked: the agent chmods the entrypoint itself).
    expect(statSync(join(target3, 'run.sh')).isFile()).toBe(true);
  });

  test('two sessions of one build preparing at once share the fetches', async () => {
    const counting = countingFetch();
    const cache = new ChunkCache(tempDir('cloudhost-cache-'), { fetch: counting.fetcher });
    const location = await locationOf(first);
    const [a, b] = await Promise.all([cache.prepare(location), cache.prepare(location)]);
    expect(a.indexHashHex).toBe(b.indexHashHex);
    expect(counting.requests.length).toBe(1 + a.stats.rangeRequests + b.stats.rangeRequests);
    expect(b.stats.rangeRequests + a.stats.rangeRequests).toBe(Math.max(a.stats.rangeRequests, b.stats.rangeRequests));
  });

  test('zstd-compressed packages, and a server that ignores Range (200 with the whole archive)', async () => {
    const files: PackageFiles = { 'bin/game': noise(600_000, 7), 'assets/text.txt': 'hello '.repeat(100_000) };
    const compressed = await uploadPackage(server, owner, project.id, files, { tags: ['os:linux'], entrypoint: ['bin', 'game'], compression: 1 });
    const counting = countingFetch({ dropRange: true });
    const cache = new ChunkCache(tempDir('cloudhost-cache-'), { fetch: counting.fetcher });
    const prepared = await cache.prepare(await locationOf(compressed));
    expect(counting.requests.filter((request) => request.status === 200).length).toBe(counting.requests.length);
    const target = join(tempDir('cloudhost-session-'), 'game');
    await cache.extract(prepared, target);
    expectExtracted(target, files);
  });

  test('a damaged cached chunk is refused and fetched again; a wrong index hash is refused', async () => {
    const cacheDir = tempDir('cloudhost-cache-');
    const counting = countingFetch();
    const cache = new ChunkCache(cacheDir, { fetch: counting.fetcher });
    const location = await locationOf(first);
    const prepared = await cache.prepare(location);
    const [prefix] = readdirSync(join(cacheDir, 'chunks'));
    const [name] = readdirSync(join(cacheDir, 'chunks', prefix!));
    const path = join(cacheDir, 'chunks', prefix!, name!);
    const bytes = readFileSync(path);
    bytes[0] = bytes[0]! ^ 0xff;
    writeFileSync(path, bytes);
    await expect(cache.extract(prepared, join(tempDir('cloudhost-session-'), 'game'))).rejects.toThrow('damaged');
    counting.requests.length = 0;
    const again = await cache.prepare(location);
    expect(again.stats.chunksFetched).toBe(1);
    expect(counting.requests.length).toBe(1);
    await cache.extract(again, join(tempDir('cloudhost-session-'), 'game'));

    const wrong = { ...location, indexHash: '0'.repeat(64) };
    await expect(new ChunkCache(tempDir('cloudhost-cache-')).prepare(wrong)).rejects.toThrow('does not match its hash');
  });

  test('prune keeps packages in use and drops the least recently used chunks', async () => {
    const cacheDir = tempDir('cloudhost-cache-');
    const cache = new ChunkCache(cacheDir);
    const a = await cache.prepare(await locationOf(first));
    const release = cache.hold(a);
    const b = await cache.prepare(await locationOf(second));
    const before = await cache.size();
    await cache.prune(0);
    // Everything of the held package stays; the update's own chunks go.
    const remaining = await cache.size();
    expect(remaining).toBeLessThan(before);
    expect((await cache.prepare(await locationOf(first))).stats.chunksFetched).toBe(0);
    release();
    await cache.prune(0);
    expect(await cache.size()).toBe(0);
    expect(b.indexHashHex).not.toBe(a.indexHashHex);
  });
});

describe('range planning', () => {
  const chunk = (size: number) => ({ hash: new Uint8Array(32), size, compressedSize: size });
  test('neighbouring missing chunks make one run; long present stretches split runs; runs stay under the limit', () => {
    let offset = 100;
    const planned = [true, true, false, true, false, false, false, true, true].map((missing) => {
      const item = { chunk: chunk(1000), hex: '', offset, missing };
      offset += 1000;
      return item;
    });
    const runs = planRuns(planned, 10_000, 1000);
    expect(runs.map((run) => [run.start, run.end, run.chunks.length])).toEqual([
      [100, 4100, 4],
      [7100, 9100, 2],
    ]);
    expect(planRuns(planned, 1500, 1000).map((run) => [run.start, run.end])).toEqual([
      [100, 1100],
      [1100, 2100],
      [3100, 4100],
      [7100, 8100],
      [8100, 9100],
    ]);
    expect(planRuns(planned.map((item) => ({ ...item, missing: false })), 10_000, 1000)).toEqual([]);
  });
});
