import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { addFile, addSymlink, bytesSource, createTree, concatBytes } from '../../src/shared/archive/index.ts';
import { transitionWorkdir } from '../../src/helper/install/engine.ts';
import { metaNames } from '../../src/helper/install/meta.ts';
import { craftArchive, encodeFields, nestedFileIndex, packIgnoringLinkRule, sha256 } from '../support/archive-craft.ts';
import { expectedDisk, noise, packFiles, readDisk, removeTempDirs, serveArchives, workdir, type ArchiveServer, type TestFiles } from './install-support.ts';

/**
 * Archives and servers the engine must refuse, each before anything reaches the workdir (and, for an
 * update, with the installed version left whole).
 */
let server: ArchiveServer;
const installed: TestFiles = { 'game.bin': noise(300_000, 1), 'readme.txt': 'hello\n' };
let installedUrl: string;

beforeAll(async () => {
  server = serveArchives();
  server.set('installed.crt', await packFiles(installed));
  installedUrl = server.url('installed.crt');
});
afterAll(() => {
  server.stop();
  removeTempDirs();
});

/**
 * Tries `url` on an empty workdir and on one holding the good package: the failure is `expected` and
 * the workdir is as it was. A refused index leaves no staging either; a refused chunk leaves what was
 * staged before it (the next call resumes from there).
 */
async function expectRefused(url: string, expected: Record<string, unknown>, stage: 'index' | 'chunks' = 'index'): Promise<void> {
  const fresh = workdir();
  await expect(transitionWorkdir({ dir: fresh.dir, metaDir: fresh.metaDir, packageUrl: url })).rejects.toMatchObject(expected);
  expect(existsSync(fresh.dir) ? readdirSync(fresh.dir) : []).toEqual([]);
  expect(existsSync(join(fresh.metaDir, metaNames.staging))).toBe(stage === 'chunks');
  expect(existsSync(join(fresh.metaDir, metaNames.receipt))).toBe(false);
  const update = workdir();
  await transitionWorkdir({ dir: update.dir, metaDir: update.metaDir, packageUrl: installedUrl });
  await expect(transitionWorkdir({ dir: update.dir, metaDir: update.metaDir, packageUrl: url })).rejects.toMatchObject(expected);
  expect(readDisk(update.dir)).toEqual(expectedDisk(installed));
}

let count = 0;
function serve(bytes: Uint8Array): string {
  const name = `hostile-${++count}.crt`;
  server.set(name, bytes);
  return server.url(name);
}

const content = new TextEncoder().encode('payload');
const goodIndex = nestedFileIndex(['dir', 'file.txt'], content);

describe('archives the engine refuses before writing anything', () => {
  test('an index that does not match its hash', async () => {
    await expectRefused(serve(craftArchive(goodIndex, { hash: new Uint8Array(32), data: content })), { code: 'wrong_index_hash' });
  });

  test('a patch archive (it needs its base)', async () => {
    await expectRefused(serve(craftArchive(goodIndex, { flags: 1, data: content })), { code: 'invalid_entry', message: expect.stringContaining('patch') });
  });

  test('not an archive, unknown flags', async () => {
    await expectRefused(serve(new TextEncoder().encode('<html>not found</html>')), { code: 'wrong_magic' });
    await expectRefused(serve(craftArchive(goodIndex, { flags: 4, data: content })), { code: 'invalid_entry' });
  });

  test('hostile sizes: an index declared above the limit, an archive shorter than its index or its chunks', async () => {
    await expectRefused(serve(craftArchive(goodIndex, { declaredSize: 2 ** 40, data: content })), { code: 'wrong_index_size' });
    const whole = craftArchive(goodIndex, { data: content });
    await expectRefused(serve(whole.subarray(0, 20)), { code: 'archive_ended' });
    // 70 000 bytes of index claimed, the first Range reply (64 KiB) and the archive both end sooner.
    await expectRefused(serve(craftArchive(concatBytes([goodIndex, new Uint8Array(70_000)]), { declaredSize: goodIndex.length + 70_000 }).subarray(0, 66_000)), {
      code: 'archive_ended',
    });
    await expectRefused(serve(whole.subarray(0, whole.length - 3)), { code: 'archive_ended' }, 'chunks');
  });

  test('a zstd chunk that inflates far beyond its declared size (bounded, refused)', async () => {
    const bomb = Bun.zstdCompressSync(new Uint8Array(256 * 1024 * 1024), { level: 19 });
    const size = 200_000;
    expect(bomb.length).toBeLessThan(size);
    const index = encodeFields(1, 1, 0, 1, 1, 'bomb.bin', 0, size, 1, sha256(noise(size, 3)), size, bomb.length);
    const before = process.memoryUsage().rss;
    await expectRefused(serve(craftArchive(index, { data: bomb })), { code: 'wrong_chunk_hash' }, 'chunks');
    expect(process.memoryUsage().rss - before).toBeLessThan(128 * 1024 * 1024);
  });

  test('names with .. and links leading out of the tree (directly or through other links)', async () => {
    await expectRefused(serve(craftArchive(nestedFileIndex(['..', 'evil.txt'], content), { data: content })), { code: 'invalid_entry' });
    await expectRefused(serve(craftArchive(nestedFileIndex(['ok', '..', 'evil.txt'], content), { data: content })), { code: 'invalid_entry' });
    const direct = createTree();
    addFile(direct, 'game.bin', bytesSource(content));
    addSymlink(direct, 'passwd', '../../../../etc/passwd');
    await expectRefused(serve(await packIgnoringLinkRule(direct)), { code: 'path_outside_target', path: 'passwd' });
    const chained = createTree();
    addFile(chained, 'sub/file.txt', bytesSource(content));
    addSymlink(chained, 'sub/up', '..');
    addSymlink(chained, 'escape', 'sub/up/..');
    await expectRefused(serve(await packIgnoringLinkRule(chained)), { code: 'path_outside_target', path: 'escape' });
    const absolute = createTree();
    addSymlink(absolute, 'root', '/');
    await expectRefused(serve(await packIgnoringLinkRule(absolute)), { code: 'path_outside_target' });
  });

  test('a missing package (404) and a server answering another range', async () => {
    await expectRefused(server.url('missing.crt'), { code: 'archive_fetch_failed', status: 404 });
    const archive = await packFiles({ 'a.bin': noise(100_000, 9) });
    const liar = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch(request) {
        const range = /bytes=(\d+)-(\d+)/.exec(request.headers.get('range') ?? '');
        // The index request is answered right; the chunk data request with bytes from elsewhere.
        const start = Number(range?.[1] ?? 0);
        const shifted = start === 0 ? 0 : start + 10;
        const end = Math.min(archive.length, Number(range?.[2] ?? archive.length - 1) + 1 + (shifted - start));
        return new Response(archive.slice(shifted, end), { status: 206, headers: { 'content-range': `bytes ${shifted}-${end - 1}/${archive.length}` } });
      },
    });
    try {
      await expectRefused(`http://127.0.0.1:${liar.port}/a.crt`, { code: 'archive_fetch_failed', message: expect.stringContaining('another range') }, 'chunks');
    } finally {
      liar.stop(true);
    }
  });
});
