import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeIndex, listUniqueChunks, toHex, type CompressionAlgorithm } from '../../src/shared/archive/index.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { readInstalled, removeWorkdirFiles, repairWorkdir, transitionWorkdir } from '../../src/helper/install/engine.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { sendArchive } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { countingFetch, expectedDisk, noise, packFiles, readDisk, removeTempDirs, sizeOf, workdir, type TestFiles } from './install-support.ts';

/**
 * The engine against the real Cartridge server: packages pushed through the API (create, parts,
 * finalize), installed from the signed archive URL the page hands the helper (GET .../download → {url}),
 * which /api/files serves with Range (206) from the server's chunk store.
 */
let server: TestServer;
let owner: TestUser;
let project: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server);
  project = await createProject(server, owner);
});
afterAll(async () => {
  await server?.stop();
  removeTempDirs();
});

async function push(files: TestFiles, compression: CompressionAlgorithm = 0): Promise<Package> {
  const archive = await packFiles(files, { compression });
  const { finalize } = await sendArchive(server, owner, project.id, archive, { tags: ['os:linux', 'arch:x86'], entrypoint: ['bin', 'game'] });
  if (finalize.status !== 200) throw new Error(`finalize: ${finalize.status} ${await finalize.text()}`);
  return (await finalize.json()) as Package;
}

/** The signed URL the page gives the helper (workdir_transition's package_url). */
async function signedUrl(pkg: Package, filter = ''): Promise<string> {
  const response = await server.fetch(`/api/projects/${project.id}/packages/${pkg.id}/download${filter}`, { token: owner.token });
  expect(response.status).toBe(200);
  return ((await response.json()) as { url: string }).url;
}

async function chunkHashes(pkg: Package): Promise<Map<string, number>> {
  const index = decodeIndex(new Uint8Array(await (await fetch(await signedUrl(pkg, '?filter=index'))).arrayBuffer()));
  return new Map(listUniqueChunks(index).map((chunk) => [toHex(chunk.hash), chunk.compressedSize]));
}

const level = noise(1_200_000, 2);
const version1: TestFiles = {
  'bin/game': { bytes: noise(2_000_000, 1), executable: true },
  'bin/game.sh': { link: 'game' },
  'data/level1.dat': level,
  'data/level2.dat': noise(800_000, 3),
  'data/retired.dat': noise(300_000, 4),
  'lang/en.txt': 'hello\n'.repeat(1000),
};
const edited = level.slice();
edited.set(noise(8000, 99), 600_000);
const version2: TestFiles = {
  'bin/game': { bytes: noise(2_000_000, 1), executable: true },
  'bin/game.sh': { link: 'game' },
  'data/level1.dat': edited,
  // level2 moved into a pak with a new header: its chunks come from disk.
  'data/pak/levels.pak': new Uint8Array([...new TextEncoder().encode('PAK1'), ...noise(800_000, 3)]),
  'data/level4.dat': noise(250_000, 5),
  'lang/en.txt': 'hello\n'.repeat(1000),
};

describe('installing from the real server’s signed download URL', () => {
  test('install, update by the changed chunks only, repair, uninstall', async () => {
    const [first, second] = [await push(version1), await push(version2)];
    const { dir, metaDir } = workdir();

    const counting = countingFetch();
    const installed = await transitionWorkdir({ dir, metaDir, packageUrl: await signedUrl(first), fetch: counting.fetch });
    expect(readDisk(dir)).toEqual(expectedDisk(version1));
    expect(installed.indexHash).toBe(first.indexHash!);
    expect(installed.size).toBe(sizeOf(version1));
    expect(counting.requests.map((request) => request.status)).toEqual([206, 206]);

    // The update: the index, then Range requests for the chunks version 1 lacks.
    const oldChunks = await chunkHashes(first);
    const newChunks = [...(await chunkHashes(second))].filter(([hash]) => !oldChunks.has(hash));
    const newBytes = newChunks.reduce((sum, [, size]) => sum + size, 0);
    counting.requests.length = 0;
    const updated = await transitionWorkdir({ dir, metaDir, packageUrl: await signedUrl(second), fetch: counting.fetch });
    expect(readDisk(dir)).toEqual(expectedDisk(version2));
    expect(updated.indexHash).toBe(second.indexHash!);
    expect(counting.requests.every((request) => request.status === 206)).toBe(true);
    // Chunk data fetched: the new chunks, plus at most a 64 KiB gap per joined run; and the index (≤ 64 KiB here).
    const chunkBytes = updated.stats.bytesFetched - 64 * 1024;
    expect(chunkBytes).toBeLessThanOrEqual(newBytes + 64 * 1024 * (counting.requests.length - 1));
    expect(updated.stats.bytesFetched).toBeLessThan(sizeOf(version2) / 4);
    expect(updated.stats.bytesReused).toBeGreaterThan(2_000_000 + 800_000);
    expect(readdirSync(join(dir, 'data')).sort()).toEqual(['level1.dat', 'level4.dat', 'pak']);

    // Damage: a flipped byte, a deleted file, a lost mode; repair fetches only the damaged chunks with a fresh URL.
    const game = readFileSync(join(dir, 'bin', 'game'));
    game[1_500_000] = game[1_500_000]! ^ 0x55;
    writeFileSync(join(dir, 'bin', 'game'), game);
    rmSync(join(dir, 'data', 'level4.dat'));
    chmodSync(join(dir, 'bin', 'game'), 0o644);
    counting.requests.length = 0;
    const repair = await repairWorkdir({ dir, metaDir, packageUrl: await signedUrl(second), fetch: counting.fetch });
    expect(repair.repaired).toEqual(['bin/game', 'data/level4.dat']);
    expect(readDisk(dir)).toEqual(expectedDisk(version2));
    expect(repair.stats.bytesFetched).toBeLessThan(250_000 + 2 * 256 * 1024 + 64 * 1024);
    expect(counting.requests.every((request) => request.status === 206 && request.range !== null)).toBe(true);

    await removeWorkdirFiles({ dir, metaDir });
    expect(readdirSync(dir)).toEqual([]);
    expect(await readInstalled(metaDir)).toBeUndefined();
  });

  test('a zstd-compressed package installs and updates through the server', async () => {
    const files: TestFiles = { 'bin/game': { bytes: noise(700_000, 21), executable: true }, 'text/strings.txt': 'text '.repeat(200_000) };
    const changed: TestFiles = { ...files, 'text/strings.txt': 'text '.repeat(200_000) + 'more text\n' };
    const [first, second] = [await push(files, 1), await push(changed, 1)];
    const { dir, metaDir } = workdir();
    const installed = await transitionWorkdir({ dir, metaDir, packageUrl: await signedUrl(first) });
    expect(readDisk(dir)).toEqual(expectedDisk(files));
    // Compressed on the wire: far fewer bytes than the files.
    expect(installed.stats.bytesFetched).toBeLessThan(sizeOf(files) * 0.8);
    const updated = await transitionWorkdir({ dir, metaDir, packageUrl: await signedUrl(second) });
    expect(readDisk(dir)).toEqual(expectedDisk(changed));
    expect(updated.stats.bytesFetched).toBeLessThan(64 * 1024 + 64 * 1024);
  });

  test('an expired or forged URL is refused and the installed version stays', async () => {
    const pkg = await push({ 'bin/game': { bytes: noise(100_000, 31), executable: true } });
    const { dir, metaDir } = workdir();
    await transitionWorkdir({ dir, metaDir, packageUrl: await signedUrl(pkg) });
    const url = await signedUrl(pkg);
    const forged = url.replace(/\/files\/([^/]+)\/archive\/(\d+)\/([^/]+)\//, (_, id, expires, signature: string) => `/files/${id}/archive/${expires}/${signature.slice(0, -2)}xx/`);
    expect(forged).not.toBe(url);
    await expect(transitionWorkdir({ dir, metaDir, packageUrl: forged })).rejects.toMatchObject({ code: 'archive_fetch_failed' });
    expect(readDisk(dir)).toEqual(expectedDisk({ 'bin/game': { bytes: noise(100_000, 31), executable: true } }));
  });
});
