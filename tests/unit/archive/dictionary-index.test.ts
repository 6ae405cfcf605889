import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import zlib from 'node:zlib';
import {
  acceptsDcz,
  availableDictionaryValue,
  canDeltaIndex,
  DCZ_HEADER_SIZE,
  DCZ_MAGIC,
  decodeIndexDelta,
  deltaCompressionParams,
  encodeIndexDelta,
  fetchIndexWithDictionary,
  MAX_DICTIONARY_BYTES,
} from '../../../src/shared/archive/dictionary-index.ts';
import { concatBytes, createDirectory, encodeIndex, type ArchiveChunk, type ArchiveIndex, type RemoteStats } from '../../../src/shared/archive/index.ts';

/** src/shared/archive/dictionary-index.ts: RFC 9842 dcz index deltas, their headers and the fetch. */
const sha256 = (bytes: Uint8Array) => new Uint8Array(new Bun.CryptoHasher('sha256').update(bytes).digest());

/** Deterministic pseudo-random bytes (chunk hashes that never repeat). */
function random(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

type Files = { path: string[]; chunks: ArchiveChunk[] }[];

/** A game-like listing: `count` files of 1..40 chunks in 20 folders. */
function gameFiles(count: number, seed: number): Files {
  const files: Files = [];
  for (let i = 0; i < count; i++) {
    const chunks = Array.from({ length: 1 + ((i * 7919) % 40) }, (_, c) => ({ hash: random(32, seed * 1_000_003 + i * 64 + c), size: 65536, compressedSize: 60000 }));
    files.push({ path: [`set${i % 20}`, `file_${String(i).padStart(5, '0')}.pak`], chunks });
  }
  return files;
}

function encode(files: Files): Uint8Array {
  const root = createDirectory('');
  for (const file of files) {
    let directory = root;
    for (const name of file.path.slice(0, -1)) {
      let next = directory.entries.get(name);
      if (!next) {
        next = createDirectory(name);
        directory.entries.set(name, next);
      }
      directory = next as typeof root;
    }
    const size = file.chunks.reduce((sum, chunk) => sum + chunk.size, 0);
    directory.entries.set(file.path.at(-1)!, { kind: 'file', name: file.path.at(-1)!, size, mode: 0, chunks: file.chunks });
    directory.size += size;
  }
  const index: ArchiveIndex = { chunking: 1, compression: 1, root };
  return concatBytes(encodeIndex(index));
}

/** 1% of the files get one chunk changed, one file is added. */
function update(files: Files, seed: number): Files {
  const next = files.map((file) => ({ path: file.path, chunks: file.chunks.slice() }));
  for (let k = 0; k < Math.max(1, Math.round(files.length / 100)); k++) {
    const file = next[(k * 104729 + seed) % next.length]!;
    file.chunks[0] = { ...file.chunks[0]!, hash: random(32, seed * 31 + k) };
  }
  next.push({ path: ['patches', 'patch_001.pak'], chunks: [{ hash: random(32, seed), size: 1000, compressedSize: 1000 }] });
  return next;
}

describe('encode and decode', () => {
  test('a 1 MiB index: the delta holds only the changed entries and decodes to the exact new index', async () => {
    const files = gameFiles(1700, 1);
    const base = encode(files);
    const target = encode(update(files, 2));
    expect(base.length).toBeGreaterThan(900_000);
    const baseHash = sha256(base);
    const delta = (await encodeIndexDelta(target, base, baseHash))!;
    expect(delta).toBeDefined();
    expect(delta.subarray(0, 8)).toEqual(DCZ_MAGIC);
    expect(delta.subarray(8, 40)).toEqual(baseHash);
    expect(delta.length).toBeLessThan(4000);
    expect(await decodeIndexDelta(delta, base, baseHash)).toEqual(target);
    // The frame is plain zstd with a raw-content dictionary: any RFC 9842 decoder reads it.
    const plainDecoded: Uint8Array = new Uint8Array(zlib.zstdDecompressSync(delta.subarray(DCZ_HEADER_SIZE), { dictionary: base } as zlib.ZstdOptions));
    expect(plainDecoded).toEqual(target);
  });

  test('the window covers the new index: without it the dictionary is lost midway', async () => {
    const base = random(6 * 1024 * 1024, 3);
    const target = base.slice();
    target.set(random(300, 4), 3 * 1024 * 1024);
    const params = deltaCompressionParams(base.length, target.length);
    expect(2 ** params[zlib.constants.ZSTD_c_windowLog]!).toBeGreaterThanOrEqual(target.length);
    const delta = (await encodeIndexDelta(target, base, sha256(base)))!;
    expect(delta.length).toBeLessThan(4000);
    const small = zlib.zstdCompressSync(target, { dictionary: base, params: { ...params, [zlib.constants.ZSTD_c_windowLog]: 21 } } as zlib.ZstdOptions);
    expect(small.length).toBeGreaterThan(target.length / 2);
  });

  test('a 24 MiB base (greedy tables): its start is matched too', async () => {
    const base = random(24 * 1024 * 1024, 5);
    const target = base.slice();
    for (let i = 0; i < 20; i++) target.set(random(200, 6 + i), i * 1_200_000 + 1000);
    const delta = (await encodeIndexDelta(target, base, sha256(base)))!;
    expect(delta.length).toBeLessThan(target.length / 50);
    expect(await decodeIndexDelta(delta, base, sha256(base))).toEqual(target);
  }, 30_000);

  test('no delta when it would not be smaller, for a base above the bound, or a base that is a zstd dictionary file', async () => {
    const base = random(100_000, 7);
    expect(await encodeIndexDelta(random(100_000, 8), base, sha256(base))).toBeUndefined();
    expect(canDeltaIndex(MAX_DICTIONARY_BYTES + 1, 1000)).toBe(false);
    expect(canDeltaIndex(1000, 129 * 1024 * 1024)).toBe(false);
    const dictionaryFile = base.slice();
    dictionaryFile.set([0x37, 0xa4, 0x30, 0xec], 0);
    expect(await encodeIndexDelta(dictionaryFile.slice(), dictionaryFile, sha256(dictionaryFile))).toBeUndefined();
  });

  test('decoding refuses another magic, another dictionary and output past the bound; a cut frame is not the index', async () => {
    const files = gameFiles(300, 9);
    const base = encode(files);
    const target = encode(update(files, 10));
    const baseHash = sha256(base);
    const delta = (await encodeIndexDelta(target, base, baseHash))!;
    const codeOf = (promise: Promise<unknown>) => promise.then(() => 'decoded', (error: { code?: string }) => error.code);
    const badMagic = delta.slice();
    badMagic[0] = 0;
    expect(await codeOf(decodeIndexDelta(badMagic, base, baseHash))).toBe('wrong_magic');
    expect(await codeOf(decodeIndexDelta(delta.subarray(0, 20), base, baseHash))).toBe('wrong_magic');
    expect(await codeOf(decodeIndexDelta(delta, base, sha256(target)))).toBe('wrong_index_hash');
    // zstd through node:zlib decodes a cut frame to fewer bytes without an error: the caller's size and
    // hash check (remoteIndexFrom) is what refuses it.
    const cut = await decodeIndexDelta(delta.subarray(0, delta.length - 5), base, baseHash).catch(() => undefined);
    expect(cut).not.toEqual(target);
    expect(await codeOf(decodeIndexDelta(delta, base, baseHash, target.length - 1))).toBe('wrong_index_size');
    expect(await decodeIndexDelta(delta, base, baseHash, target.length)).toEqual(target);
    // A bomb: 64 MiB of zeros in a tiny frame stops at the bound.
    const bomb = concatBytes([DCZ_MAGIC, baseHash, zlib.zstdCompressSync(new Uint8Array(64 * 1024 * 1024), { dictionary: base } as zlib.ZstdOptions)]);
    expect(bomb.length).toBeLessThan(10_000);
    expect(await codeOf(decodeIndexDelta(bomb, base, baseHash, 1024 * 1024))).toBe('wrong_index_size');
  });
});

describe('headers', () => {
  const hash = sha256(new TextEncoder().encode('x'));
  test('Available-Dictionary is an RFC 8941 byte sequence of the SHA-256', async () => {
    const { parseAvailableDictionary } = await import('../../../src/shared/archive/dictionary-index.ts');
    const value = availableDictionaryValue(hash);
    expect(value).toMatch(/^:[A-Za-z0-9+/]{43}=:$/);
    expect(parseAvailableDictionary(value)).toEqual(hash);
    expect(parseAvailableDictionary(` ${value} `)).toEqual(hash);
    expect(parseAvailableDictionary(value.replace('=:', ':'))).toEqual(hash);
    expect(parseAvailableDictionary(`${value};x=1`)).toEqual(hash);
    for (const bad of [null, undefined, '', '::', value.slice(1), value.slice(0, -1), `:${Buffer.from(hash.subarray(1)).toString('base64')}:`, `:${'A'.repeat(43)}==:`, value.replace('=', '*'), `${value},${value}`, `:${'A'.repeat(100_000)}:`]) {
      expect(parseAvailableDictionary(bad)).toBeUndefined();
    }
  });

  test('Accept-Encoding must list dcz with a non-zero weight', () => {
    for (const yes of ['dcz', 'gzip, dcz', 'DCZ;q=0.5', 'br;q=1, dcz ; q=1', 'zstd,dcz']) expect(acceptsDcz(yes)).toBe(true);
    for (const no of [null, '', 'gzip', '*', 'dcz;q=0', 'dczx', 'dcb', 'x'.repeat(5000) + ',dcz']) expect(acceptsDcz(no)).toBe(false);
  });
});

describe('fetchIndexWithDictionary', () => {
  const files = gameFiles(400, 11);
  const base = encode(files);
  const target = encode(update(files, 12));
  const baseHash = sha256(base);
  let server: ReturnType<typeof Bun.serve>;
  let seen: { ae: string | null; ad: string | null }[] = [];
  beforeAll(async () => {
    const delta = (await encodeIndexDelta(target, base, baseHash))!;
    server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch(request) {
        const path = new URL(request.url).pathname;
        seen.push({ ae: request.headers.get('accept-encoding'), ad: request.headers.get('available-dictionary') });
        const offered = acceptsDcz(request.headers.get('accept-encoding')) && request.headers.get('available-dictionary') === availableDictionaryValue(baseHash);
        if (path === '/delta' && offered) return new Response(delta as Uint8Array<ArrayBuffer>, { headers: { 'content-encoding': 'dcz' } });
        if (path === '/garbage') return new Response(concatBytes([DCZ_MAGIC, baseHash, random(100, 1)]) as Uint8Array<ArrayBuffer>, { headers: { 'content-encoding': 'dcz' } });
        if (path === '/gone') return new Response('no', { status: 403 });
        return new Response(target as Uint8Array<ArrayBuffer>);
      },
    });
  });
  afterAll(() => server?.stop(true));
  const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;

  test('offers the dictionary and decodes the delta; counts what was received', async () => {
    seen = [];
    const stats: RemoteStats = { requests: 0, bytesFetched: 0 };
    const result = await fetchIndexWithDictionary(url('/delta'), { bytes: base, hash: baseHash }, { stats });
    expect(result.encoding).toBe('dcz');
    expect(result.bytes).toEqual(target);
    expect(seen).toEqual([{ ae: 'dcz', ad: availableDictionaryValue(baseHash) }]);
    expect(stats.requests).toBe(1);
    expect(stats.bytesFetched).toBe(result.received);
    expect(result.received).toBeLessThan(target.length / 20);
  });

  test('a server that ignores the offer sends the whole index; without a dictionary nothing is offered', async () => {
    const plain = await fetchIndexWithDictionary(url('/plain'), { bytes: base, hash: baseHash });
    expect(plain).toMatchObject({ encoding: 'identity', received: target.length });
    expect(plain.bytes).toEqual(target);
    seen = [];
    const fresh = await fetchIndexWithDictionary(url('/delta'), undefined);
    expect(fresh.encoding).toBe('identity');
    expect(seen[0]!.ad).toBeNull();
  });

  test('failures are archive errors: a delta that does not decode, a refused URL, a dictionary that is not what its hash says, the size limit', async () => {
    const codeOf = (promise: Promise<unknown>) => promise.then(() => 'fetched', (error: { code?: string }) => error.code);
    expect(await codeOf(fetchIndexWithDictionary(url('/garbage'), { bytes: base, hash: baseHash }))).toBe('wrong_index_size');
    expect(await codeOf(fetchIndexWithDictionary(url('/gone'), { bytes: base, hash: baseHash }))).toBe('archive_fetch_failed');
    expect(await codeOf(fetchIndexWithDictionary(url('/delta'), { bytes: target, hash: baseHash }))).toBe('wrong_index_hash');
    expect(await codeOf(fetchIndexWithDictionary(url('/plain'), undefined, { maxIndexSize: 1000 }))).toBe('wrong_index_size');
    expect(await codeOf(fetchIndexWithDictionary(url('/delta'), { bytes: base, hash: baseHash }, { maxIndexSize: target.length - 1 }))).toBe('wrong_index_size');
  });
});
