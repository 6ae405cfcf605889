import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readInstalled, recoverWorkdir, removeWorkdirFiles, repairWorkdir, transitionWorkdir } from '../../src/helper/install/engine.ts';
import { metaNames } from '../../src/helper/install/meta.ts';
import {
  countingFetch,
  expectedDisk,
  noise,
  packFiles,
  readDisk,
  removeTempDirs,
  serveArchives,
  sizeOf,
  tempDir,
  workdir,
  type ArchiveServer,
  type TestFiles,
} from './install-support.ts';

/**
 * The install engine against archives packed with the shared writer, served by a loopback server that
 * answers Range with the Cartridge server's own code (src/server/http/range.ts). Real files, real HTTP.
 */
let server: ArchiveServer;
beforeAll(() => {
  server = serveArchives();
});
afterAll(() => {
  server.stop();
  removeTempDirs();
});

let served = 0;
/** Packs and serves files; returns the URL. */
async function publish(files: TestFiles, options: { compression?: 0 | 1 } = {}): Promise<string> {
  const name = `p${++served}.crt`;
  server.set(name, await packFiles(files, options));
  return server.url(name);
}

const version1: TestFiles = {
  'bin/game': { bytes: noise(1_200_000, 1), executable: true },
  'data/level1.dat': noise(700_000, 2),
  'data/level2.dat': noise(500_000, 3),
  'data/old/notes.txt': 'old notes\n',
  'readme.txt': 'hello\n',
  'current': { link: 'data/level1.dat' },
  'lib/libgame.so': noise(300_000, 4),
  'lib/libgame.so.1': { link: 'libgame.so' },
};
const editedLevel = noise(700_000, 2);
editedLevel.set(noise(5000, 77), 350_000);
const version2: TestFiles = {
  'bin/game': { bytes: noise(1_200_000, 1), executable: true },
  'data/level1.dat': editedLevel,
  'data/level3.dat': noise(150_000, 5),
  'readme.txt': { bytes: 'hello\n', executable: true },
  'current': { link: 'data/level3.dat' },
  'lib/libgame.so': noise(300_000, 4),
  'lib/libgame.so.1': { link: 'libgame.so' },
};

describe('install and update', () => {
  test('a fresh install writes every file with its mode and every link, in two requests; the receipt says what is installed', async () => {
    const url = await publish(version1);
    const { dir, metaDir } = workdir();
    const counting = countingFetch();
    const progress: { done: number; total: number }[] = [];
    const result = await transitionWorkdir({ dir, metaDir, packageUrl: url, fetch: counting.fetch, onProgress: (p) => progress.push(p) });
    expect(readDisk(dir)).toEqual(expectedDisk(version1));
    expect(result.size).toBe(sizeOf(version1));
    expect(result.files).toBe(6);
    expect(await readInstalled(metaDir)).toEqual({ indexHash: result.indexHash, size: result.size, files: 6 });
    // The header and index (one Range request: the index is small), then the chunk data (one run).
    expect(counting.requests.map((request) => request.status)).toEqual([206, 206]);
    expect(result.stats).toMatchObject({ requests: 2, bytesWritten: sizeOf(version1), bytesReused: 0 });
    expect(result.stats.bytesFetched).toBeGreaterThanOrEqual(sizeOf(version1));
    expect(result.stats.bytesFetched).toBeLessThan(sizeOf(version1) + 80_000);
    // Progress: monotonic, in bytes, at least every MiB, ending at the total.
    expect(progress.length).toBeGreaterThan(2);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.done).toBeGreaterThanOrEqual(progress[i - 1]!.done);
    expect(progress.at(-1)).toEqual({ done: sizeOf(version1), total: sizeOf(version1) });
    // Nothing left behind in the private folder but the receipt.
    expect(readdirSync(metaDir).sort()).toEqual([metaNames.receipt]);
  });

  test('an update fetches only the changed chunks, leaves unchanged files untouched, removes leavers and empty folders, keeps a player’s files', async () => {
    const { dir, metaDir } = workdir();
    await transitionWorkdir({ dir, metaDir, packageUrl: await publish(version1) });
    writeFileSync(join(dir, 'data', 'save.dat'), 'my save');
    const untouched = lstatSync(join(dir, 'lib', 'libgame.so'));
    const url2 = await publish(version2);
    const counting = countingFetch();
    const result = await transitionWorkdir({ dir, metaDir, packageUrl: url2, fetch: counting.fetch });
    expect(readDisk(dir)).toEqual({ ...expectedDisk(version2), 'data/save.dat': expect.objectContaining({ kind: 'file' }) });
    expect(existsSync(join(dir, 'data', 'old'))).toBe(false);
    expect(existsSync(join(dir, 'data', 'level2.dat'))).toBe(false);
    // The same inode: an unchanged file is not rewritten.
    expect(lstatSync(join(dir, 'lib', 'libgame.so')).ino).toBe(untouched.ino);
    // Fetched: the edited region of level1 (a chunk or three) and the new level3, not the 2.8 MB package.
    expect(result.stats.bytesFetched).toBeLessThan(150_000 + 300_000 + 70_000);
    expect(counting.requests.every((request) => request.status === 206)).toBe(true);
    expect(result.stats.bytesReused).toBeGreaterThan(1_500_000 + 300_000);
    expect(result.stats.bytesWritten).toBe(700_000 + 150_000);
    expect((await readInstalled(metaDir))?.indexHash).toBe(result.indexHash);
  });

  test('chunks that moved to another file are copied from disk, not fetched', async () => {
    const big = noise(2_000_000, 11);
    const { dir, metaDir } = workdir();
    await transitionWorkdir({ dir, metaDir, packageUrl: await publish({ 'a/big.pak': big, 'b.txt': 'b' }) });
    const moved: TestFiles = { 'renamed/big.pak': big, 'copy/big-copy.pak': big, 'b.txt': 'b' };
    const result = await transitionWorkdir({ dir, metaDir, packageUrl: await publish(moved) });
    expect(readDisk(dir)).toEqual(expectedDisk(moved));
    // Only the header and index: every chunk of the moved file came from the old one.
    expect(result.stats.requests).toBe(1);
    expect(result.stats.bytesFetched).toBeLessThan(70_000);
    expect(result.stats.bytesReused).toBe(2 * 2_000_000 + 1);
  });

  test('installing the installed package again does nothing; zstd-compressed packages install and update', async () => {
    const files: TestFiles = { 'game.bin': noise(800_000, 21), 'text/strings.txt': 'hello '.repeat(50_000), 'run.sh': { bytes: '#!/bin/sh\n', executable: true } };
    const url = await publish(files, { compression: 1 });
    const { dir, metaDir } = workdir();
    const first = await transitionWorkdir({ dir, metaDir, packageUrl: url });
    expect(readDisk(dir)).toEqual(expectedDisk(files));
    const again = await transitionWorkdir({ dir, metaDir, packageUrl: url });
    expect(again.indexHash).toBe(first.indexHash);
    expect(again.stats).toMatchObject({ requests: 1, bytesWritten: 0 });
    const changed: TestFiles = { ...files, 'text/strings.txt': 'hello '.repeat(50_000) + 'world' };
    const update = await transitionWorkdir({ dir, metaDir, packageUrl: await publish(changed, { compression: 1 }) });
    expect(readDisk(dir)).toEqual(expectedDisk(changed));
    expect(update.stats.bytesFetched).toBeLessThan(70_000 + 20_000);
  });

  test('kinds change places: a file becomes a folder, a folder a file, a link a folder, a folder a link', async () => {
    const before: TestFiles = { 'x': 'file x', 'y/inner.txt': 'in y', 'z': { link: 'y' }, 'w/a.txt': 'a', 'keep.txt': 'k' };
    const after: TestFiles = { 'x/now-a-folder.txt': 'x is a folder', 'y': 'y is a file', 'z/real.txt': 'z is a folder', 'w': { link: 'keep.txt' }, 'keep.txt': 'k' };
    const { dir, metaDir } = workdir();
    await transitionWorkdir({ dir, metaDir, packageUrl: await publish(before) });
    await transitionWorkdir({ dir, metaDir, packageUrl: await publish(after) });
    expect(readDisk(dir)).toEqual(expectedDisk(after));
    // And back.
    await transitionWorkdir({ dir, metaDir, packageUrl: await publish(before) });
    expect(readDisk(dir)).toEqual(expectedDisk(before));
  });

  test('links of the old version, or planted by hand, never redirect a write outside the workdir', async () => {
    const outside = tempDir('install-outside-');
    writeFileSync(join(outside, 'victim.txt'), 'untouched');
    const before: TestFiles = { 'assets': { link: 'real' }, 'real/a.txt': 'a' };
    const after: TestFiles = { 'assets/a.txt': 'new a', 'assets/b.txt': 'new b', 'real/a.txt': 'a', 'victim.txt': 'package file', 'levels/l1.dat': 'level' };
    const { dir, metaDir } = workdir();
    await transitionWorkdir({ dir, metaDir, packageUrl: await publish(before) });
    // A player (or malware) plants links where the update writes.
    symlinkSync(join(outside, 'victim.txt'), join(dir, 'victim.txt'));
    symlinkSync(outside, join(dir, 'levels'));
    await transitionWorkdir({ dir, metaDir, packageUrl: await publish(after) });
    expect(readDisk(dir)).toEqual(expectedDisk(after));
    expect(lstatSync(join(dir, 'assets')).isDirectory()).toBe(true);
    // The old link's target did not receive the new files; outside is as it was.
    expect(readdirSync(join(dir, 'real'))).toEqual(['a.txt']);
    expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('untouched');
    expect(readdirSync(outside)).toEqual(['victim.txt']);
  });

  test('a second transition on the same workdir while one runs is refused (busy)', async () => {
    const slow = serveArchives({ bytesPerSecond: 4_000_000 });
    try {
      slow.set('p.crt', await packFiles({ 'big.bin': noise(2_000_000, 31) }));
      const { dir, metaDir } = workdir();
      const running = transitionWorkdir({ dir, metaDir, packageUrl: slow.url('p.crt') });
      await Bun.sleep(50);
      await expect(transitionWorkdir({ dir, metaDir, packageUrl: slow.url('p.crt') })).rejects.toMatchObject({ code: 'busy' });
      await running;
      expect(readDisk(dir)).toEqual(expectedDisk({ 'big.bin': noise(2_000_000, 31) }));
    } finally {
      slow.stop();
    }
  });

  test('a server answering 200 instead of 206 is read from the start (install and update)', async () => {
    const whole = serveArchives({ ignoreRange: true });
    try {
      whole.set('v1.crt', await packFiles(version1));
      whole.set('v2.crt', await packFiles(version2));
      const { dir, metaDir } = workdir();
      const counting = countingFetch();
      await transitionWorkdir({ dir, metaDir, packageUrl: whole.url('v1.crt'), fetch: counting.fetch });
      expect(readDisk(dir)).toEqual(expectedDisk(version1));
      const update = await transitionWorkdir({ dir, metaDir, packageUrl: whole.url('v2.crt'), fetch: counting.fetch });
      expect(readDisk(dir)).toEqual(expectedDisk(version2));
      expect(counting.requests.every((request) => request.status === 200)).toBe(true);
      // One pass for all the update's chunks (not one whole download per run).
      expect(update.stats.requests).toBe(2);
    } finally {
      whole.stop();
    }
  });
});

describe('abort and resume', () => {
  test('an abort stops promptly and leaves the old version; the next call fetches only what was not staged yet', async () => {
    const slow = serveArchives({ bytesPerSecond: 6_000_000 });
    try {
      const files: TestFiles = { 'one.bin': noise(1_500_000, 41), 'two.bin': noise(1_500_000, 42), 'three.bin': noise(1_000_000, 43) };
      slow.set('new.crt', await packFiles(files));
      const { dir, metaDir } = workdir();
      await transitionWorkdir({ dir, metaDir, packageUrl: await publish(version1) });
      const controller = new AbortController();
      let doneAtAbort = 0;
      const started = performance.now();
      let abortedAt = 0;
      const attempt = transitionWorkdir({
        dir,
        metaDir,
        packageUrl: slow.url('new.crt'),
        signal: controller.signal,
        onProgress: ({ done }) => {
          if (done >= 1_500_000 && !controller.signal.aborted) {
            doneAtAbort = done;
            abortedAt = performance.now();
            controller.abort();
          }
        },
      });
      await expect(attempt).rejects.toMatchObject({ name: 'AbortError' });
      expect(performance.now() - abortedAt).toBeLessThan(500);
      expect(performance.now() - started).toBeLessThan(5000);
      // The old version is still there, whole.
      expect(readDisk(dir)).toEqual(expectedDisk(version1));
      expect(existsSync(join(metaDir, metaNames.journal))).toBe(true);
      expect(await recoverWorkdir({ dir, metaDir })).toMatchObject({ files: 6 });
      // Resume on a fast server: the staged chunks are verified and kept, the rest fetched.
      server.set('new.crt', await packFiles(files));
      const counting = countingFetch();
      const resumed = await transitionWorkdir({ dir, metaDir, packageUrl: server.url('new.crt'), fetch: counting.fetch });
      expect(readDisk(dir)).toEqual(expectedDisk(files));
      expect(resumed.stats.bytesReused).toBeGreaterThanOrEqual(doneAtAbort);
      expect(resumed.stats.bytesFetched).toBeLessThan(4_000_000 - doneAtAbort + 70_000 + 256 * 1024);
      expect(resumed.stats.bytesWritten).toBe(4_000_000 - resumed.stats.bytesReused);
      // The resumed Range requests skip the start of the chunk data (staged already).
      const ranges = counting.requests.slice(1).map((request) => Number(/bytes=(\d+)-/.exec(request.range ?? '')?.[1]));
      expect(Math.min(...ranges)).toBeGreaterThan(1_000_000);
    } finally {
      slow.stop();
    }
  });

  test('a staged chunk damaged while the transition was stopped is fetched again', async () => {
    const slow = serveArchives({ bytesPerSecond: 6_000_000 });
    try {
      const files: TestFiles = { 'one.bin': noise(2_000_000, 51), 'two.bin': noise(1_000_000, 52) };
      slow.set('p.crt', await packFiles(files));
      server.set('resume-damaged.crt', await packFiles(files));
      const { dir, metaDir } = workdir();
      const controller = new AbortController();
      let doneAtAbort = 0;
      const attempt = transitionWorkdir({
        dir,
        metaDir,
        packageUrl: slow.url('p.crt'),
        signal: controller.signal,
        onProgress: ({ done }) => {
          if (done >= 1_000_000 && !controller.signal.aborted) {
            doneAtAbort = done;
            controller.abort();
          }
        },
      });
      await expect(attempt).rejects.toMatchObject({ name: 'AbortError' });
      expect(readdirSync(dir)).toEqual([]);
      // Damage the start of the first staged file.
      const staged = join(metaDir, metaNames.staging, '0');
      const bytes = readFileSync(staged);
      bytes[10] = bytes[10]! ^ 0xff;
      writeFileSync(staged, bytes);
      const resumed = await transitionWorkdir({ dir, metaDir, packageUrl: server.url('resume-damaged.crt') });
      expect(readDisk(dir)).toEqual(expectedDisk(files));
      // Everything staged but the damaged chunk (at most 256 KiB) was kept.
      expect(resumed.stats.bytesReused).toBeLessThan(doneAtAbort);
      expect(resumed.stats.bytesReused).toBeGreaterThanOrEqual(doneAtAbort - 256 * 1024);
    } finally {
      slow.stop();
    }
  });
});

describe('repair and uninstall', () => {
  test('repair re-hashes every file, restores damaged and missing ones from disk or by Range, fixes modes and links', async () => {
    const url = await publish(version1);
    const { dir, metaDir } = workdir();
    await transitionWorkdir({ dir, metaDir, packageUrl: url });
    // One byte flipped in the middle of the game, level2 gone, the link retargeted, a mode lost, a file where a folder was.
    const game = readFileSync(join(dir, 'bin', 'game'));
    game[600_000] = game[600_000]! ^ 1;
    writeFileSync(join(dir, 'bin', 'game'), game);
    rmSync(join(dir, 'data', 'level2.dat'));
    rmSync(join(dir, 'current'));
    symlinkSync('readme.txt', join(dir, 'current'));
    chmodSync(join(dir, 'lib', 'libgame.so'), 0o600);
    rmSync(join(dir, 'data', 'old'), { recursive: true });
    writeFileSync(join(dir, 'data', 'old'), 'not a folder');
    const counting = countingFetch();
    const progress: { done: number; total: number }[] = [];
    const result = await repairWorkdir({ dir, metaDir, packageUrl: url, fetch: counting.fetch, onProgress: (p) => progress.push(p) });
    expect(result.repaired).toEqual(['bin/game', 'current', 'data/level2.dat', 'data/old/notes.txt', 'lib/libgame.so']);
    expect(readDisk(dir)).toEqual(expectedDisk(version1));
    // Only the damaged chunk of the game, level2's chunks and notes.txt's: no index download.
    const level2 = 500_000;
    expect(result.stats.bytesFetched).toBeLessThan(level2 + 2 * 256 * 1024 + 64 * 1024);
    expect(counting.requests.every((request) => request.status === 206)).toBe(true);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.done).toBeGreaterThanOrEqual(progress[i - 1]!.done);
    // A repair of an intact workdir fetches nothing.
    const clean = await repairWorkdir({ dir, metaDir, packageUrl: url });
    expect(clean.repaired).toEqual([]);
    expect(clean.stats).toMatchObject({ requests: 0, bytesFetched: 0, bytesReused: sizeOf(version1) });
  });

  test('uninstall removes the package’s files and links, keeps a player’s, and the receipt goes', async () => {
    const { dir, metaDir } = workdir();
    await transitionWorkdir({ dir, metaDir, packageUrl: await publish(version1) });
    writeFileSync(join(dir, 'data', 'save.dat'), 'mine');
    await removeWorkdirFiles({ dir, metaDir });
    expect(readDisk(dir)).toEqual({ 'data/save.dat': expect.objectContaining({ kind: 'file' }) });
    expect(await readInstalled(metaDir)).toBeUndefined();
    expect(readdirSync(metaDir)).toEqual([]);
    await expect(repairWorkdir({ dir, metaDir, packageUrl: 'http://127.0.0.1:1/x' })).rejects.toMatchObject({ code: 'not_installed' });
  });
});

describe('what the engine refuses', () => {
  test('a workdir and a private folder inside each other', async () => {
    const root = tempDir();
    await expect(transitionWorkdir({ dir: root, metaDir: join(root, '.meta'), packageUrl: 'http://127.0.0.1:1/x' })).rejects.toMatchObject({ code: 'bad_folders' });
    await expect(transitionWorkdir({ dir: join(root, 'a', 'b'), metaDir: join(root, 'a'), packageUrl: 'http://127.0.0.1:1/x' })).rejects.toMatchObject({ code: 'bad_folders' });
  });

  test('a package the chunk data of which does not match, without touching the installed version', async () => {
    const { dir, metaDir } = workdir();
    await transitionWorkdir({ dir, metaDir, packageUrl: await publish(version1) });
    const archive = await packFiles(version2);
    // A byte of data/level3.dat (new in version 2, so fetched) flipped.
    const level3 = Buffer.from(archive).indexOf(Buffer.from(noise(150_000, 5).subarray(0, 64)));
    expect(level3).toBeGreaterThan(0);
    archive[level3 + 1000] = archive[level3 + 1000]! ^ 0xff;
    server.set('corrupt.crt', archive);
    await expect(transitionWorkdir({ dir, metaDir, packageUrl: server.url('corrupt.crt') })).rejects.toMatchObject({ code: 'wrong_chunk_hash' });
    expect(readDisk(dir)).toEqual(expectedDisk(version1));
    // The next call starts over cleanly and succeeds against a good archive.
    await transitionWorkdir({ dir, metaDir, packageUrl: await publish(version2) });
    expect(readDisk(dir)).toEqual(expectedDisk(version2));
  });
});
