import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  archiveDataStart,
  decodeIndex,
  encodeIndex,
  concatBytes,
  fetchIndexFile,
  fetchRuns,
  locateChunks,
  planRuns,
  readRemoteIndex,
  toHex,
  type RemoteStats,
} from '../../src/shared/archive/index.ts';
import { serveArchives, noise, packFiles, type ArchiveServer, type TestFiles } from '../helper/install-support.ts';

/** src/shared/archive/remote/: chunk offsets, run planning, ranged index and chunk reads. */
let server: ArchiveServer;
let whole: ArchiveServer;
const files: TestFiles = { 'a.bin': noise(600_000, 1), 'b.bin': noise(300_000, 2), 'c/same-as-a.bin': noise(600_000, 1) };
let archive: Uint8Array;
/** 2500 small files: an index above the first request's 64 KiB. */
let manyArchive: Uint8Array;

beforeAll(async () => {
  server = serveArchives();
  whole = serveArchives({ ignoreRange: true });
  archive = await packFiles(files);
  const many: TestFiles = {};
  for (let i = 0; i < 2500; i++) many[`files/file-${String(i).padStart(4, '0')}.txt`] = `content ${i}\n`;
  manyArchive = await packFiles(many);
  for (const target of [server, whole]) {
    target.set('a.crt', archive);
    target.set('many.crt', manyArchive);
  }
});
afterAll(() => {
  server.stop();
  whole.stop();
});

describe('locating chunks', () => {
  test('every distinct chunk’s offset points at its stored bytes, in first-reference order, after the index', async () => {
    const stats: RemoteStats = { requests: 0, bytesFetched: 0 };
    const remote = await readRemoteIndex(server.url('a.crt'), { stats });
    expect(remote.rangeSupported).toBe(true);
    expect(remote.dataStart).toBe(archiveDataStart(remote.indexBytes.length));
    expect(stats.requests).toBe(1);
    const located = locateChunks(remote.index, remote.dataStart);
    // c/same-as-a.bin repeats a.bin: stored once.
    const total = located.reduce((sum, item) => sum + item.chunk.compressedSize, 0);
    expect(total).toBe(900_000);
    expect(located[0]!.offset).toBe(remote.dataStart);
    expect(located.at(-1)!.offset + located.at(-1)!.chunk.compressedSize).toBe(archive.length);
    for (const item of located) {
      const stored = archive.subarray(item.offset, item.offset + item.chunk.compressedSize);
      expect(new Bun.CryptoHasher('sha256').update(stored).digest('hex')).toBe(item.hex);
    }
  });

  test('an index above 64 KiB takes a second Range request for its rest; a server ignoring Range is read from the start', async () => {
    const stats: RemoteStats = { requests: 0, bytesFetched: 0 };
    const remote = await readRemoteIndex(server.url('many.crt'), { stats });
    expect(remote.indexBytes.length).toBeGreaterThan(64 * 1024);
    expect(stats.requests).toBe(2);
    expect(stats.bytesFetched).toBeLessThan(remote.indexBytes.length + 1024);
    expect(toHex(remote.indexHash)).toBe(new Bun.CryptoHasher('sha256').update(remote.indexBytes).digest('hex'));
    const plain = await readRemoteIndex(whole.url('many.crt'));
    expect(plain.rangeSupported).toBe(false);
    expect(plain.indexBytes).toEqual(remote.indexBytes);
    // An expected hash that differs: refused. An aborted read throws the abort, not an archive error.
    await expect(readRemoteIndex(server.url('a.crt'), { expectedHash: '0'.repeat(64) })).rejects.toMatchObject({ code: 'wrong_index_hash' });
    await expect(readRemoteIndex(server.url('a.crt'), { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
  });

  test('an index file (.crt-index) with its hash and a size limit', async () => {
    const remote = await readRemoteIndex(server.url('a.crt'));
    const bytes = concatBytes(encodeIndex(decodeIndex(remote.indexBytes)));
    server.set('a.crt-index', bytes);
    const fetched = await fetchIndexFile(server.url('a.crt-index'), { expectedHash: toHex(remote.indexHash) });
    expect(fetched.bytes).toEqual(remote.indexBytes);
    await expect(fetchIndexFile(server.url('a.crt-index'), { expectedHash: '1'.repeat(64) })).rejects.toMatchObject({ code: 'wrong_index_hash' });
    await expect(fetchIndexFile(server.url('a.crt-index'), { maxIndexSize: 10 })).rejects.toMatchObject({ code: 'wrong_index_size' });
    await expect(fetchIndexFile(server.url('missing'))).rejects.toMatchObject({ code: 'archive_fetch_failed', status: 404 });
  });
});

describe('planning and fetching runs', () => {
  const chunk = (size: number) => ({ hash: new Uint8Array(32), size, compressedSize: size });
  test('neighbouring missing chunks join; gaps up to gapBytes are fetched along; runs stay under the limit', () => {
    let offset = 100;
    const planned = [true, true, false, true, false, false, false, true, true].map((missing) => {
      const item = { chunk: chunk(1000), offset, missing };
      offset += 1000;
      return item;
    });
    expect(planRuns(planned, 10_000, 1000).map((run) => [run.start, run.end, run.chunks.length])).toEqual([
      [100, 4100, 4],
      [7100, 9100, 2],
    ]);
    expect(planRuns(planned, 10_000, 3000).map((run) => [run.start, run.end])).toEqual([[100, 9100]]);
    expect(planRuns(planned, 1500, 1000).map((run) => [run.start, run.end])).toEqual([
      [100, 1100],
      [1100, 2100],
      [3100, 4100],
      [7100, 8100],
      [8100, 9100],
    ]);
    expect(planRuns(planned.map((item) => ({ ...item, missing: false })), 10_000, 1000)).toEqual([]);
  });

  test('fetchRuns hands over each wanted chunk verified, once, in Range requests (or one pass over a 200 reply)', async () => {
    for (const target of [server, whole]) {
      const remote = await readRemoteIndex(target.url('a.crt'));
      const located = locateChunks(remote.index, remote.dataStart);
      const wanted = new Set(located.filter((_, i) => i % 3 !== 1).map((item) => item.hex));
      const planned = located.map((item) => ({ ...item, missing: wanted.has(item.hex) }));
      const got = new Map<string, string>();
      const stats: RemoteStats = { requests: 0, bytesFetched: 0 };
      await fetchRuns(target.url('a.crt'), planRuns(planned, remote.rangeSupported ? 64 * 1024 : Infinity, remote.rangeSupported ? 0 : Infinity), {
        stats,
        concurrency: remote.rangeSupported ? 3 : 1,
        onChunk: (item, bytes) => {
          expect(got.has(item.hex)).toBe(false);
          got.set(item.hex, new Bun.CryptoHasher('sha256').update(bytes).digest('hex'));
        },
      });
      expect([...got.keys()].sort()).toEqual([...wanted].sort());
      for (const [hex, actual] of got) expect(actual).toBe(hex);
      if (remote.rangeSupported) expect(stats.bytesFetched).toBeLessThan(900_000);
      else expect(stats.requests).toBe(1);
    }
  });

  test('a chunk whose bytes are wrong fails the whole fetch (other runs stop), naming the chunk', async () => {
    const broken = archive.slice();
    const remote = await readRemoteIndex(server.url('a.crt'));
    const located = locateChunks(remote.index, remote.dataStart);
    broken[located[2]!.offset + 5]! ^= 0xff;
    server.set('broken.crt', broken);
    const planned = located.map((item) => ({ ...item, missing: true }));
    let delivered = 0;
    await expect(
      fetchRuns(server.url('broken.crt'), planRuns(planned, 64 * 1024, 0), { concurrency: 2, onChunk: () => void delivered++ }),
    ).rejects.toMatchObject({ code: 'wrong_chunk_hash', message: expect.stringContaining(located[2]!.hex.slice(0, 12)) });
    expect(delivered).toBeLessThan(located.length);
  });

  test('an abort stops the runs with the signal’s reason', async () => {
    const slow = serveArchives({ bytesPerSecond: 1_000_000 });
    try {
      slow.set('a.crt', archive);
      const remote = await readRemoteIndex(slow.url('a.crt'));
      const planned = locateChunks(remote.index, remote.dataStart).map((item) => ({ ...item, missing: true }));
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = performance.now();
      await expect(fetchRuns(slow.url('a.crt'), planRuns(planned, 1 << 30, 0), { signal: controller.signal, onChunk: () => undefined })).rejects.toMatchObject({
        name: 'AbortError',
      });
      expect(performance.now() - started).toBeLessThan(600);
    } finally {
      slow.stop();
    }
  });
});
