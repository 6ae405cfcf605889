import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readInstalled, recoverWorkdir, transitionWorkdir } from '../../src/helper/install/engine.ts';
import { metaNames } from '../../src/helper/install/meta.ts';
import { countingFetch, expectedDisk, noise, packFiles, readDisk, removeTempDirs, serveArchives, workdir, type ArchiveServer, type TestFiles } from './install-support.ts';

/**
 * kill -9 of a process running an update: during the download (a slow server keeps it there), and in
 * the middle of the swap (the engine's test hook kills the process after a few files were moved). The
 * old version must stay launchable, and recoverWorkdir or the next transition must finish the job
 * without fetching again what was already staged.
 */
const enginePath = resolve(import.meta.dir, '../../src/helper/install/engine.ts');

let fast: ArchiveServer;
let slow: ArchiveServer;
const version1: TestFiles = {
  'bin/game': { bytes: noise(1_000_000, 1), executable: true },
  'data/a.dat': noise(600_000, 2),
  'data/b.dat': noise(400_000, 3),
  'start': { link: 'bin/game' },
};
/** Mostly new bytes: a long download (new big files), an edit, a removal, many small new files for the swap. */
const version2: TestFiles = {
  'bin/game': { bytes: noise(1_000_000, 11), executable: true },
  'data/a.dat': noise(600_000, 2),
  'data/c.dat': noise(3_000_000, 12),
  'start': { link: 'bin/game' },
  ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`scripts/s${String(i).padStart(2, '0')}.lua`, `-- script ${i}\n`.repeat(20 + i)])),
};

beforeAll(async () => {
  fast = serveArchives();
  slow = serveArchives({ bytesPerSecond: 3_000_000 });
  const [archive1, archive2] = await Promise.all([packFiles(version1), packFiles(version2)]);
  for (const server of [fast, slow]) {
    server.set('v1.crt', archive1);
    server.set('v2.crt', archive2);
  }
});
afterAll(() => {
  fast.stop();
  slow.stop();
  removeTempDirs();
});

type Child = { exited: Promise<number | null>; signal: () => unknown; progress: { done: number; total: number }[]; kill(): void };

/** `bun -e` running one transition; it prints each progress report as a JSON line. */
function spawnTransition(dir: string, metaDir: string, url: string, options: { killAfterMoves?: number; onProgress?: (p: { done: number; total: number }, child: Child) => void } = {}): Child {
  const code = `
    import { transitionWorkdir } from ${JSON.stringify(enginePath)};
    const killAfter = ${options.killAfterMoves ?? 0};
    await transitionWorkdir({
      dir: ${JSON.stringify(dir)}, metaDir: ${JSON.stringify(metaDir)}, packageUrl: ${JSON.stringify(url)},
      onProgress: (p) => console.log(JSON.stringify(p)),
      afterSwapMove: killAfter ? (moved) => { if (moved === killAfter) process.kill(process.pid, 'SIGKILL'); } : undefined,
    });
    console.log('"finished"');
  `;
  const process_ = Bun.spawn([process.execPath, '-e', code], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  const child: Child = {
    exited: process_.exited,
    signal: () => process_.signalCode,
    progress: [],
    kill: () => process_.kill('SIGKILL'),
  };
  void (async () => {
    const decoder = new TextDecoder();
    let pending = '';
    for await (const piece of process_.stdout as unknown as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(piece, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        const value = JSON.parse(line) as { done: number; total: number } | string;
        if (typeof value === 'string') continue;
        child.progress.push(value);
        options.onProgress?.(value, child);
      }
    }
  })();
  return child;
}

describe('kill -9 during an update', () => {
  test('during the download: the old version stays whole and launchable; the next call resumes from the staged chunks', async () => {
    const { dir, metaDir } = workdir();
    const installed = await transitionWorkdir({ dir, metaDir, packageUrl: fast.url('v1.crt') });
    const child = spawnTransition(dir, metaDir, slow.url('v2.crt'), {
      onProgress: (progress, self) => {
        if (progress.done >= progress.total * 0.4) self.kill();
      },
    });
    expect(await child.exited).not.toBe(0);
    expect(child.signal()).toBe('SIGKILL');
    const stagedAtKill = child.progress.at(-1)!.done;
    expect(stagedAtKill).toBeGreaterThan(0);
    expect(stagedAtKill).toBeLessThan(child.progress.at(-1)!.total);

    // The old version: every file, mode and link as installed; the receipt still names it.
    expect(readDisk(dir)).toEqual(expectedDisk(version1));
    expect((await readInstalled(metaDir))?.indexHash).toBe(installed.indexHash);
    expect(JSON.parse(readFileSync(join(metaDir, metaNames.journal), 'utf8'))).toMatchObject({ phase: 'fetch' });
    // Recovery (helper start, no network) has nothing to finish: the old version stays.
    expect((await recoverWorkdir({ dir, metaDir }))?.indexHash).toBe(installed.indexHash);
    expect(readDisk(dir)).toEqual(expectedDisk(version1));

    // The reference: the same update from scratch in another workdir.
    const reference = workdir();
    await transitionWorkdir({ dir: reference.dir, metaDir: reference.metaDir, packageUrl: fast.url('v1.crt') });
    const full = await transitionWorkdir({ dir: reference.dir, metaDir: reference.metaDir, packageUrl: fast.url('v2.crt') });

    const counting = countingFetch();
    const resumed = await transitionWorkdir({ dir, metaDir, packageUrl: fast.url('v2.crt'), fetch: counting.fetch });
    expect(readDisk(dir)).toEqual(expectedDisk(version2));
    // What the killed process staged (and logged) is kept: the resumed call fetches that much less.
    const kept = resumed.stats.bytesReused - full.stats.bytesReused;
    // (less at most the last unwritten batch of the log: 1 MiB, and a chunk being written)
    expect(kept).toBeGreaterThan(stagedAtKill - 1024 * 1024 - 256 * 1024);
    expect(kept).toBeGreaterThan(0);
    expect(resumed.stats.bytesFetched).toBeLessThan(full.stats.bytesFetched - kept + 256 * 1024);
    expect(existsSync(join(metaDir, metaNames.journal))).toBe(false);
  });

  test('in the middle of the swap: recoverWorkdir finishes it without the network', async () => {
    const { dir, metaDir } = workdir();
    await transitionWorkdir({ dir, metaDir, packageUrl: fast.url('v1.crt') });
    const child = spawnTransition(dir, metaDir, fast.url('v2.crt'), { killAfterMoves: 5 });
    await child.exited;
    expect(child.signal()).toBe('SIGKILL');
    expect(JSON.parse(readFileSync(join(metaDir, metaNames.journal), 'utf8'))).toMatchObject({ phase: 'swap' });
    // Half-swapped: some new files in, the receipt still the old one.
    const disk = readDisk(dir);
    expect(disk).not.toEqual(expectedDisk(version1));
    expect(disk).not.toEqual(expectedDisk(version2));

    const recovered = await recoverWorkdir({ dir, metaDir });
    expect(readDisk(dir)).toEqual(expectedDisk(version2));
    expect((await readInstalled(metaDir))?.indexHash).toBe(recovered!.indexHash);
    expect(existsSync(join(metaDir, metaNames.journal))).toBe(false);
    expect(existsSync(join(metaDir, metaNames.staging))).toBe(false);
  });

  test('in the middle of the swap: the next transition finishes it and fetches no chunk', async () => {
    const { dir, metaDir } = workdir();
    await transitionWorkdir({ dir, metaDir, packageUrl: fast.url('v1.crt') });
    const child = spawnTransition(dir, metaDir, fast.url('v2.crt'), { killAfterMoves: 20 });
    await child.exited;
    expect(child.signal()).toBe('SIGKILL');
    const counting = countingFetch();
    const result = await transitionWorkdir({ dir, metaDir, packageUrl: fast.url('v2.crt'), fetch: counting.fetch });
    expect(readDisk(dir)).toEqual(expectedDisk(version2));
    expect(result.stats.requests).toBe(1); // the index only
    expect(result.stats.bytesWritten).toBe(0);
  });
});
