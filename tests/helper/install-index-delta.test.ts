import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { decodeIndex, type CompressionAlgorithm } from '../../src/shared/archive/index.ts';
import { DCZ_MAGIC } from '../../src/shared/archive/dictionary-index.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { transitionWorkdir } from '../../src/helper/install/engine.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { sendArchive } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { countingFetch, expectedDisk, noise, packFiles, readDisk, removeTempDirs, serveArchives, workdir, type ArchiveServer, type TestFiles } from './install-support.ts';

/**
 * Updates with an index URL (workdir_transition's index_url): the index comes from the index URL as an
 * RFC 9842 dcz delta against the receipt, checked against the archive's header and hash (two small
 * Range requests); every failure of that path falls back to reading the index from the archive.
 */
let server: TestServer;
let owner: TestUser;
let project: TestProject;
let plain: ArchiveServer;

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server);
  project = await createProject(server, owner);
  plain = serveArchives();
});
afterAll(async () => {
  plain?.stop();
  await server?.stop();
  removeTempDirs();
});

/** A game with many small files (an index of ≈ 120 KiB) and one large file; `changed` files differ. */
function game(changed: number[] = [], extra: TestFiles = {}): TestFiles {
  const files: TestFiles = { 'bin/game': { bytes: noise(600_000, 1), executable: true } };
  for (let i = 0; i < 1200; i++) files[`scripts/set${i % 12}/script_${String(i).padStart(4, '0')}.lua`] = `-- script ${i}${changed.includes(i) ? ' v2' : ''}\n`.repeat(8);
  return { ...files, ...extra };
}

async function push(files: TestFiles, compression: CompressionAlgorithm = 0): Promise<Package> {
  const archive = await packFiles(files, { compression });
  const { finalize } = await sendArchive(server, owner, project.id, archive, { tags: ['os:linux', 'arch:x86'], entrypoint: ['bin', 'game'] });
  if (finalize.status !== 200) throw new Error(`finalize: ${finalize.status} ${await finalize.text()}`);
  return (await finalize.json()) as Package;
}

async function signedUrl(pkg: Package, filter = ''): Promise<string> {
  const response = await server.fetch(`/api/projects/${project.id}/packages/${pkg.id}/download${filter}`, { token: owner.token });
  expect(response.status).toBe(200);
  return ((await response.json()) as { url: string }).url;
}

/** What the index of `pkg` weighs (the plain download). */
async function indexSize(pkg: Package): Promise<number> {
  return (await (await fetch(await signedUrl(pkg, '?filter=index'))).arrayBuffer()).byteLength;
}

const version1 = game();
const version2 = game([5, 600, 1100], { 'scripts/new.lua': 'print("new")\n' });

describe('updates with an index URL on the real server', () => {
  test('the index comes as a delta against the receipt: far fewer bytes than without', async () => {
    const [first, second] = [await push(version1), await push(version2)];
    const withDelta = workdir();
    const without = workdir();
    for (const target of [withDelta, without]) {
      // A fresh install with an index URL reads the index from the archive, as without one.
      const installed = await transitionWorkdir({ ...target, packageUrl: await signedUrl(first), indexUrl: await signedUrl(first, '?filter=index') });
      expect(installed.stats.index?.via).toBe('archive');
      expect(readDisk(target.dir)).toEqual(expectedDisk(version1));
    }

    const counting = countingFetch();
    const updated = await transitionWorkdir({ ...withDelta, packageUrl: await signedUrl(second), indexUrl: await signedUrl(second, '?filter=index'), fetch: counting.fetch });
    expect(readDisk(withDelta.dir)).toEqual(expectedDisk(version2));
    expect(updated.indexHash).toBe(second.indexHash!);
    expect(updated.stats.index?.via).toBe('dcz');
    const size = await indexSize(second);
    expect(size).toBeGreaterThan(60_000);
    // Archive header (16 bytes) + index hash (32) + a delta of three entries.
    expect(updated.stats.index!.bytes).toBeLessThan(size / 20);
    const indexRequests = counting.requests.filter((request) => request.url.includes('/index/'));
    expect(indexRequests).toHaveLength(1);
    expect(counting.requests.filter((request) => request.range === 'bytes=0-15')).toHaveLength(1);

    const reference = await transitionWorkdir({ ...without, packageUrl: await signedUrl(second) });
    expect(readDisk(without.dir)).toEqual(expectedDisk(version2));
    expect(reference.stats.index?.via).toBe('archive');
    expect(reference.stats.index!.bytes).toBeGreaterThanOrEqual(size);
    expect(updated.stats.bytesFetched).toBeLessThan(reference.stats.bytesFetched - size * 0.9);

    // Already installed: the archive's hash is the receipt's; the index is not needed.
    const again = await transitionWorkdir({ ...withDelta, packageUrl: await signedUrl(second), indexUrl: await signedUrl(second, '?filter=index') });
    expect(again.stats.index?.via).toBe('receipt');
    expect(again.stats.bytesFetched).toBeLessThan(1000);
  });

  test('a zstd package updates through a delta too', async () => {
    const files = game([], { 'text/strings.txt': 'text '.repeat(100_000) });
    const changed = game([77], { 'text/strings.txt': 'text '.repeat(100_000) + 'more\n' });
    const [first, second] = [await push(files, 1), await push(changed, 1)];
    const target = workdir();
    await transitionWorkdir({ ...target, packageUrl: await signedUrl(first) });
    const updated = await transitionWorkdir({ ...target, packageUrl: await signedUrl(second), indexUrl: await signedUrl(second, '?filter=index') });
    expect(updated.stats.index?.via).toBe('dcz');
    expect(readDisk(target.dir)).toEqual(expectedDisk(changed));
  });

  test('an index URL of another package, or one that expired: the index is read from the archive', async () => {
    const [first, second, third] = [await push(game([], { 'a.txt': 'a' })), await push(game([], { 'b.txt': 'b' })), await push(game([], { 'c.txt': 'c' }))];
    const target = workdir();
    await transitionWorkdir({ ...target, packageUrl: await signedUrl(first) });
    const mixed = await transitionWorkdir({ ...target, packageUrl: await signedUrl(second), indexUrl: await signedUrl(third, '?filter=index') });
    expect(mixed.stats.index?.via).toBe('archive');
    expect(mixed.indexHash).toBe(second.indexHash!);
    expect(readDisk(target.dir)).toEqual(expectedDisk(game([], { 'b.txt': 'b' })));
    const expired = (await signedUrl(third, '?filter=index')).replace(/\/index\/(\d+)\//, '/index/1000/');
    const update = await transitionWorkdir({ ...target, packageUrl: await signedUrl(third), indexUrl: expired });
    expect(update.stats.index?.via).toBe('archive');
    expect(readDisk(target.dir)).toEqual(expectedDisk(game([], { 'c.txt': 'c' })));
  });
});

describe('servers without dcz', () => {
  test('a server that ignores dcz sends the whole index: checked and used', async () => {
    const [archive1, archive2] = [await packFiles(version1), await packFiles(version2)];
    const { indexBytes } = await indexOf(archive2);
    plain.set('v1.crt', archive1);
    plain.set('v2.crt', archive2);
    plain.set('v2.crt-index', indexBytes);
    const target = workdir();
    await transitionWorkdir({ ...target, packageUrl: plain.url('v1.crt') });
    const counting = countingFetch();
    const updated = await transitionWorkdir({ ...target, packageUrl: plain.url('v2.crt'), indexUrl: plain.url('v2.crt-index'), fetch: counting.fetch });
    expect(updated.stats.index?.via).toBe('index');
    expect(readDisk(target.dir)).toEqual(expectedDisk(version2));
    expect(counting.requests.find((request) => request.url.endsWith('v2.crt-index'))?.status).toBe(200);
  });

  test('a server without Range, or a delta that does not decode: the index is read from the archive', async () => {
    const [archive1, archive2] = [await packFiles(version1), await packFiles(version2)];
    const whole = serveArchives({ ignoreRange: true });
    try {
      whole.set('v1.crt', archive1);
      whole.set('v2.crt', archive2);
      whole.set('v2.crt-index', (await indexOf(archive2)).indexBytes);
      const target = workdir();
      await transitionWorkdir({ ...target, packageUrl: whole.url('v1.crt') });
      const updated = await transitionWorkdir({ ...target, packageUrl: whole.url('v2.crt'), indexUrl: whole.url('v2.crt-index') });
      expect(updated.stats.index?.via).toBe('archive');
      expect(readDisk(target.dir)).toEqual(expectedDisk(version2));
    } finally {
      whole.stop();
    }

    const broken = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (request) => {
        const hash = Buffer.from(request.headers.get('available-dictionary')!.slice(1, -1), 'base64');
        return new Response(Buffer.concat([DCZ_MAGIC, hash, noise(500, 3)]), { headers: { 'content-encoding': 'dcz' } });
      },
    });
    try {
      plain.set('v1.crt', archive1);
      plain.set('v2.crt', archive2);
      const target = workdir();
      await transitionWorkdir({ ...target, packageUrl: plain.url('v1.crt') });
      const updated = await transitionWorkdir({ ...target, packageUrl: plain.url('v2.crt'), indexUrl: `http://127.0.0.1:${broken.port}/index` });
      expect(updated.stats.index?.via).toBe('archive');
      expect(readDisk(target.dir)).toEqual(expectedDisk(version2));
    } finally {
      broken.stop(true);
    }
  });

  test('an abort during the index fetch stops the transition (no fallback)', async () => {
    const [archive1, archive2] = [await packFiles(version1), await packFiles(version2)];
    plain.set('v1.crt', archive1);
    plain.set('v2.crt', archive2);
    const target = workdir();
    await transitionWorkdir({ ...target, packageUrl: plain.url('v1.crt') });
    const controller = new AbortController();
    const slow = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async () => {
        controller.abort(new Error('stop'));
        await Bun.sleep(200);
        return new Response('late');
      },
    });
    try {
      const counting = countingFetch();
      await expect(transitionWorkdir({ ...target, packageUrl: plain.url('v2.crt'), indexUrl: `http://127.0.0.1:${slow.port}/index`, signal: controller.signal, fetch: counting.fetch })).rejects.toThrow('stop');
      expect(counting.requests.filter((request) => request.range?.startsWith('bytes=0-65535'))).toHaveLength(0);
      expect(readDisk(target.dir)).toEqual(expectedDisk(version1));
    } finally {
      slow.stop(true);
    }
  });
});

/** The encoded index inside an archive: magic (4), flags (1), index size (a varint), index. */
async function indexOf(archive: Uint8Array): Promise<{ indexBytes: Uint8Array }> {
  let at = 5;
  let size = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = archive[at++]!;
    size += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  const indexBytes = archive.slice(at, at + size);
  decodeIndex(indexBytes);
  return { indexBytes };
}
