import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { AppError } from '../../../src/server/errors.ts';
import { maxBlobKeyLength, type BlobStore } from '../../../src/server/storage/index.ts';

type StoreFixture = { store: BlobStore; cleanup(): Promise<void> };
/** Opens a fresh, empty store; `listPageSize` lets S3 page through few keys (others ignore it). */
export type OpenStore = (options?: { listPageSize?: number }) => Promise<StoreFixture>;

async function readBytes(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

export async function expectAppError(promise: Promise<unknown>, code: string, message?: string): Promise<AppError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(AppError);
  const appError = caught as AppError;
  expect(appError.code).toBe(code as AppError['code']);
  if (message !== undefined) expect(appError.message).toBe(message);
  return appError;
}

export function randomBytes(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += 65536) {
    crypto.getRandomValues(bytes.subarray(offset, Math.min(size, offset + 65536)));
  }
  return bytes;
}

/**
 * A stream of `total` bytes that announces no length, in uneven chunks (never a fixed period, so a
 * lost, doubled or reordered chunk changes the digest). `digest()` is the SHA-256 of what it sent.
 */
export function unknownLengthStream(
  total: number,
  options: { failAfter?: number; pauseAt?: number } = {},
): { stream: ReadableStream<Uint8Array>; digest(): string; sent(): number; resume(): void; paused: Promise<void> } {
  const base = randomBytes(1024 * 1024 + 7);
  const sizes = [65536, 1000, 300_001, 1, 131_072, 4096 * 3 + 5];
  const hasher = new Bun.CryptoHasher('sha256');
  let sent = 0;
  let index = 0;
  let resume = () => {};
  let markPaused = () => {};
  const paused = new Promise<void>((resolve) => (markPaused = resolve));
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (options.pauseAt !== undefined && sent >= options.pauseAt) {
        markPaused();
        await resumed;
      }
      if (options.failAfter !== undefined && sent >= options.failAfter) {
        controller.error(new Error('source broke'));
        return;
      }
      if (sent >= total) {
        controller.close();
        return;
      }
      const size = Math.min(sizes[index % sizes.length]!, total - sent);
      const start = (index * 7919) % (base.length - size);
      const chunk = base.slice(start, start + size);
      new DataView(chunk.buffer).setUint8(0, index & 0xff);
      index++;
      hasher.update(chunk);
      sent += size;
      controller.enqueue(chunk);
    },
  });
  return { stream, digest: () => hasher.digest('hex'), sent: () => sent, resume, paused };
}

export function sha256(bytes: Uint8Array): string {
  return new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
}

async function sha256OfStream(stream: ReadableStream<Uint8Array>): Promise<{ digest: string; size: number }> {
  const hasher = new Bun.CryptoHasher('sha256');
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    hasher.update(value);
    size += value.byteLength;
  }
  return { digest: hasher.digest('hex'), size };
}

const invalidKeys = [
  '',
  '/leading',
  'trailing/',
  'double//slash',
  '../up',
  'a/../b',
  'a/..',
  './here',
  'a/.hidden',
  'space here',
  'percent%2F',
  'back\\slash',
  'ünïcode',
  'x'.repeat(961),
  `long/${'s'.repeat(256)}`,
];

/** The behaviour every BlobStore promises, run against each implementation. */
export function describeBlobStoreContract(name: string, openStore: OpenStore): void {
  describe(`${name}: BlobStore contract`, () => {
    let fixture: StoreFixture;
    let store: BlobStore;
    beforeEach(async () => {
      fixture = await openStore();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    test('bytes round trip, with size and stat', async () => {
      const bytes = randomBytes(100_000);
      const before = Date.now();
      expect(await store.put('chunks/ab/abcdef', bytes)).toEqual({ size: 100_000 });
      expect(sha256(await readBytes(await store.get('chunks/ab/abcdef')))).toBe(sha256(bytes));
      const info = await store.stat('chunks/ab/abcdef');
      expect(info?.size).toBe(100_000);
      expect(info?.modified).toBeInstanceOf(Date);
      // Second resolution on S3; allow a little clock skew either way.
      expect(Math.abs(info!.modified.getTime() - before)).toBeLessThan(5_000);
    });

    test('a view into a larger buffer stores only its own bytes', async () => {
      const whole = randomBytes(300_000);
      const view = whole.subarray(70_000, 170_000);
      expect(await store.put('chunks/view', view)).toEqual({ size: 100_000 });
      expect(sha256(await store.read('chunks/view'))).toBe(sha256(view));
    });

    test('string bodies are stored as UTF-8', async () => {
      expect(await store.put('text/hello.txt', 'héllo ✓')).toEqual({ size: 10 });
      expect(await readText(await store.get('text/hello.txt'))).toBe('héllo ✓');
      expect((await store.stat('text/hello.txt'))?.size).toBe(10);
    });

    test('Blob bodies round trip', async () => {
      const blob = new Blob([new Uint8Array([1, 2, 3]), 'four'], { type: 'application/x-test' });
      expect(await store.put('blobs/one', blob, { contentType: 'application/x-test' })).toEqual({ size: 7 });
      expect([...(await readBytes(await store.get('blobs/one')))]).toEqual([1, 2, 3, 102, 111, 117, 114]);
    });

    test('empty bodies make empty blobs', async () => {
      expect(await store.put('empty/bytes', new Uint8Array(0))).toEqual({ size: 0 });
      expect((await readBytes(await store.get('empty/bytes'))).byteLength).toBe(0);
      expect((await store.stat('empty/bytes'))?.size).toBe(0);
      const { stream } = unknownLengthStream(0);
      expect(await store.put('empty/stream', stream)).toEqual({ size: 0 });
      expect((await store.stat('empty/stream'))?.size).toBe(0);
    });

    test('a streamed 20 MiB body of unknown length round trips', async () => {
      const total = 20 * 1024 * 1024 + 12_345;
      const source = unknownLengthStream(total);
      expect(await store.put('uploads/big/part-1', source.stream)).toEqual({ size: total });
      expect(source.sent()).toBe(total);
      expect((await store.stat('uploads/big/part-1'))?.size).toBe(total);
      expect(await sha256OfStream(await store.get('uploads/big/part-1'))).toEqual({ digest: source.digest(), size: total });
    }, 20_000);

    describe('ranges', () => {
      const bytes = randomBytes(1_000_003);
      beforeEach(async () => {
        await store.put('ranged', bytes);
      });
      const expectRange = async (range: { start: number; end?: number }, from: number, to: number) => {
        const got = await readBytes(await store.get('ranged', range));
        expect(got.byteLength).toBe(to - from);
        expect(sha256(got)).toBe(sha256(bytes.subarray(from, to)));
      };

      test('start only reads to the end', () => expectRange({ start: 300_000 }, 300_000, 1_000_003));
      test('start and inclusive end, across read chunks', () =>
        expectRange({ start: 262_140, end: 700_000 }, 262_140, 700_001));
      test('a single byte', async () => {
        await expectRange({ start: 0, end: 0 }, 0, 1);
        await expectRange({ start: 1_000_002, end: 1_000_002 }, 1_000_002, 1_000_003);
      });
      test('start 0 without end is the whole blob', () => expectRange({ start: 0 }, 0, 1_000_003));
      test('an end past the last byte is clamped', () =>
        expectRange({ start: 999_990, end: 5_000_000 }, 999_990, 1_000_003));
      test('a start at or past the end yields an empty stream', async () => {
        expect((await readBytes(await store.get('ranged', { start: 1_000_003 }))).byteLength).toBe(0);
        expect((await readBytes(await store.get('ranged', { start: 2_000_000, end: 2_000_010 }))).byteLength).toBe(0);
      });
      test('a range of a missing blob is not_found', async () => {
        await expectAppError(store.get('missing', { start: 0, end: 10 }), 'not_found');
      });
      test('read gives the same bytes as get, whole or ranged, in one buffer', async () => {
        expect(sha256(await store.read('ranged'))).toBe(sha256(bytes));
        for (const [range, from, to] of [
          [{ start: 262_140, end: 700_000 }, 262_140, 700_001],
          [{ start: 999_990, end: 5_000_000 }, 999_990, 1_000_003],
          [{ start: 1_000_003 }, 1_000_003, 1_000_003],
        ] as const) {
          const got = await store.read('ranged', range);
          expect(got.byteLength).toBe(to - from);
          expect(sha256(got)).toBe(sha256(bytes.subarray(from, to)));
        }
        await expectAppError(store.read('missing'), 'not_found');
        await expectAppError(store.read('ranged', { start: 5, end: 4 }), 'bad_param');
      });
      test('malformed ranges are bad_param', async () => {
        for (const range of [{ start: -1 }, { start: 5, end: 4 }, { start: 1.5 }, { start: 0, end: Number.NaN }]) {
          await expectAppError(store.get('ranged', range), 'bad_param', 'Invalid `range`');
        }
      });
    });

    test('stat of a missing key is undefined', async () => {
      expect(await store.stat('nothing/here')).toBeUndefined();
    });

    test('get of a missing key rejects with not_found', async () => {
      await expectAppError(store.get('nothing/here'), 'not_found');
    });

    test('a key that is only a folder of other keys is not a blob', async () => {
      await store.put('folder/inside', 'x');
      expect(await store.stat('folder')).toBeUndefined();
      await expectAppError(store.get('folder'), 'not_found');
      await store.delete('folder');
      expect(await store.stat('folder/inside')).toBeDefined();
    });

    test('delete removes the blob and is idempotent', async () => {
      await store.put('doomed/one', 'bye');
      await store.put('doomed/two', 'stay');
      await store.delete('doomed/one');
      expect(await store.stat('doomed/one')).toBeUndefined();
      await expectAppError(store.get('doomed/one'), 'not_found');
      await store.delete('doomed/one');
      await store.delete('never/existed');
      expect(await readText(await store.get('doomed/two'))).toBe('stay');
    });

    test('put overwrites', async () => {
      await store.put('index/v1', 'first version, longer');
      expect(await store.put('index/v1', 'second')).toEqual({ size: 6 });
      expect(await readText(await store.get('index/v1'))).toBe('second');
      expect((await store.stat('index/v1'))?.size).toBe(6);
    });

    test('concurrent puts of one key both complete, and one of them wins whole', async () => {
      const a = randomBytes(3 * 1024 * 1024);
      const b = randomBytes(2 * 1024 * 1024);
      const results = await Promise.all([
        store.put('chunks/same', unknownLengthStreamOf(a)),
        store.put('chunks/same', unknownLengthStreamOf(b)),
        store.put('chunks/same', a),
      ]);
      expect(results.map((result) => result.size)).toEqual([a.byteLength, b.byteLength, a.byteLength]);
      const digest = sha256(await readBytes(await store.get('chunks/same')));
      expect([sha256(a), sha256(b)]).toContain(digest);
      expect(await collect(store.list('chunks/'))).toHaveLength(1);
    });

    test('list returns keys under a prefix, sorted, with sizes', async () => {
      const keys = ['b', 'a/b/c', 'a-c', 'a.b', 'a/b', 'a0', 'a/a', 'ab/x', 'c/d/e/f'];
      // a/b is a key and a folder at once on S3 but not on disk: keep the set valid for both.
      const valid = keys.filter((key) => key !== 'a/b');
      for (const [index, key] of valid.entries()) await store.put(key, 'x'.repeat(index + 1));
      const sizeOf = (key: string) => valid.indexOf(key) + 1;
      const sorted = [...valid].sort();
      expect(sorted).toEqual(['a-c', 'a.b', 'a/a', 'a/b/c', 'a0', 'ab/x', 'b', 'c/d/e/f']);
      expect(await collect(store.list(''))).toEqual(sorted.map((key) => ({ key, size: sizeOf(key) })));
      expect((await collect(store.list('a/'))).map((entry) => entry.key)).toEqual(['a/a', 'a/b/c']);
      // A prefix is a plain string prefix, not a folder.
      expect((await collect(store.list('a'))).map((entry) => entry.key)).toEqual([
        'a-c',
        'a.b',
        'a/a',
        'a/b/c',
        'a0',
        'ab/x',
      ]);
      expect((await collect(store.list('a/b'))).map((entry) => entry.key)).toEqual(['a/b/c']);
      expect((await collect(store.list('c/d/e/'))).map((entry) => entry.key)).toEqual(['c/d/e/f']);
      expect(await collect(store.list('zzz/'))).toEqual([]);
    });

    test('list pages through many keys', async () => {
      const paged = await openStore({ listPageSize: 3 });
      try {
        const keys = Array.from({ length: 11 }, (_, index) => `parts/${String(index).padStart(3, '0')}`);
        await Promise.all(keys.map((key) => paged.store.put(key, key)));
        await paged.store.put('partsX', 'not under parts/');
        expect(await collect(paged.store.list('parts/'))).toEqual(keys.map((key) => ({ key, size: key.length })));
      } finally {
        await paged.cleanup();
      }
    });

    test('invalid keys are bad_param for every operation', async () => {
      for (const key of invalidKeys) {
        await expectAppError(store.put(key, 'x'), 'bad_param', 'Invalid `key`');
        await expectAppError(store.get(key), 'bad_param', 'Invalid `key`');
        await expectAppError(store.stat(key), 'bad_param', 'Invalid `key`');
        await expectAppError(store.delete(key), 'bad_param', 'Invalid `key`');
      }
      for (const prefix of ['/a', '../', 'a//', '.tmp', 'a/.x', 'with space', 'x'.repeat(256)]) {
        await expectAppError(collect(store.list(prefix)), 'bad_param', 'Invalid `prefix`');
      }
      expect(await collect(store.list(''))).toEqual([]);
    });

    test('the longest and oddest valid keys work', async () => {
      const longKey = `${'k'.repeat(240)}/${'e'.repeat(240)}/${'y'.repeat(240)}/${'z'.repeat(237)}`;
      expect(longKey).toHaveLength(maxBlobKeyLength);
      const longSegment = `seg/${'s'.repeat(255)}`;
      const keys = [longKey, longSegment, 'A-Z_a.z/0-9.bin', 'x..y/z'];
      for (const key of keys) {
        await store.put(key, key);
        expect(await readText(await store.get(key))).toBe(key);
      }
      expect((await collect(store.list(''))).map((entry) => entry.key)).toEqual(keys.sort());
    });

    test('a cancelled read leaves the store usable', async () => {
      await store.put('cancel/me', randomBytes(3 * 1024 * 1024));
      const stream = await store.get('cancel/me');
      const reader = stream.getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);
      await reader.cancel();
      await store.delete('cancel/me');
      expect(await store.stat('cancel/me')).toBeUndefined();
    });

    test('a put whose body stream fails stores nothing', async () => {
      await store.put('broken/keep', 'old');
      const source = unknownLengthStream(8 * 1024 * 1024, { failAfter: 1024 * 1024 });
      let caught: unknown;
      await store.put('broken/new', source.stream).catch((error: unknown) => (caught = error));
      expect(String(caught)).toContain('source broke');
      expect(await store.stat('broken/new')).toBeUndefined();
      // An overwrite that fails keeps the old blob.
      const again = unknownLengthStream(8 * 1024 * 1024, { failAfter: 2 * 1024 * 1024 });
      await expect(store.put('broken/keep', again.stream)).rejects.toThrow('source broke');
      expect(await readText(await store.get('broken/keep'))).toBe('old');
      expect((await collect(store.list('broken/'))).map((entry) => entry.key)).toEqual(['broken/keep']);
    });
  });
}

function unknownLengthStreamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) {
        controller.close();
        return;
      }
      const end = Math.min(bytes.byteLength, offset + 100_000);
      controller.enqueue(bytes.slice(offset, end));
      offset = end;
    },
  });
}
