import { expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addFile, bytesSource, createTree, readArchive, toHex, type ArchiveTree, type ReadChunk } from '../../../src/shared/archive/index.ts';
import { sharedHashThread, startHashThread } from '../../../src/shared/archive/hash-thread.ts';
import { BATCH_HASH_MIN_BYTES, type ChunkBatchHasher } from '../../../src/shared/archive/reader.ts';
import { fillPseudoRandom, packToBytes, streamOf } from './support.ts';

function sha256(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(bytes).digest());
}

/** An in-thread hasher that records its batches (and can lie about one digest). */
function recordingHasher(maxBatchBytes = 1_300_000, lieAt?: number): ChunkBatchHasher & { batches: number[][] } {
  const batches: number[][] = [];
  let seen = 0;
  return {
    maxBatchBytes,
    batches,
    async hashBatch(views) {
      batches.push(views.map((view) => view.length));
      const out = new Uint8Array(32 * views.length);
      views.forEach((view, i) => {
        const digest = sha256(view);
        if (seen++ === lieAt) digest[0]! ^= 1;
        out.set(digest, 32 * i);
      });
      return out;
    },
  };
}

function bigTree(size: number, seed: number): ArchiveTree {
  const tree = createTree();
  const data = new Uint8Array(size);
  fillPseudoRandom(data, seed);
  addFile(tree, 'a.bin', bytesSource(data));
  addFile(tree, 'b.bin', bytesSource(data.subarray(0, 100_000)));
  addFile(tree, 'c.bin', bytesSource(new TextEncoder().encode('tail')));
  return tree;
}

async function collect(iterator: AsyncGenerator<ReadChunk>): Promise<{ chunks: ReadChunk[]; error?: { code?: string } }> {
  const chunks: ReadChunk[] = [];
  try {
    for await (const chunk of iterator) chunks.push(chunk);
  } catch (error) {
    return { chunks, error: error as { code?: string } };
  }
  return { chunks };
}

test('with a batch hasher the reader yields the same verified chunks in order, in batches within its limit', async () => {
  const { bytes } = await packToBytes(bigTree(6_000_000, 1));
  const plain = await collect((await readArchive(streamOf(bytes, 50_000))).chunks());
  const hasher = recordingHasher();
  const batched = await collect((await readArchive(streamOf(bytes, 50_000), { chunkHasher: hasher })).chunks());
  expect(batched.error).toBeUndefined();
  expect(batched.chunks.map((c) => [c.ordinal, toHex(c.hash), c.size])).toEqual(plain.chunks.map((c) => [c.ordinal, toHex(c.hash), c.size]));
  for (const chunk of batched.chunks) expect(toHex(sha256(chunk.bytes))).toBe(toHex(chunk.hash));
  expect(hasher.batches.length).toBeGreaterThan(3);
  for (const batch of hasher.batches) expect(batch.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(hasher.maxBatchBytes);
});

test('small archives are hashed on the calling thread even with a batch hasher', async () => {
  const { bytes } = await packToBytes(bigTree(BATCH_HASH_MIN_BYTES / 2, 2));
  const hasher = recordingHasher();
  const { chunks, error } = await collect((await readArchive(streamOf(bytes), { chunkHasher: hasher })).chunks());
  expect(error).toBeUndefined();
  expect(chunks.length).toBeGreaterThan(10);
  expect(hasher.batches).toEqual([]);
});

test('a wrong digest, a cut stream and trailing bytes fail with their codes after every chunk before them was yielded', async () => {
  const { bytes } = await packToBytes(bigTree(6_000_000, 3));
  const plain = await collect((await readArchive(streamOf(bytes))).chunks());
  const count = plain.chunks.length;

  const lying = await collect((await readArchive(streamOf(bytes), { chunkHasher: recordingHasher(undefined, 40) })).chunks());
  expect(lying.error?.code).toBe('wrong_chunk_hash');
  expect(lying.chunks.length).toBe(40);

  // Cut inside the last chunk ('c.bin', 4 bytes): everything before it is still yielded.
  const cut = await collect((await readArchive(streamOf(bytes.subarray(0, bytes.length - 2)), { chunkHasher: recordingHasher() })).chunks());
  expect(cut.error?.code).toBe('archive_ended');
  expect(cut.chunks.length).toBe(count - 1);

  const longer = new Uint8Array(bytes.length + 1);
  longer.set(bytes);
  const trailing = await collect((await readArchive(streamOf(longer), { chunkHasher: recordingHasher() })).chunks());
  expect(trailing.error?.code).toBe('invalid_entry');
  expect(trailing.chunks.length).toBe(count);
});

test('a failing hasher fails the read as an ArchiveError, and stopping early releases the stream', async () => {
  const { bytes } = await packToBytes(bigTree(6_000_000, 4));
  const broken: ChunkBatchHasher = { maxBatchBytes: 1_000_000, hashBatch: () => Promise.reject(new Error('thread died')) };
  const failed = await collect((await readArchive(streamOf(bytes), { chunkHasher: broken })).chunks());
  expect(failed.chunks).toEqual([]);
  expect(failed.error?.code).toBe('invalid_entry');

  let cancelled = false;
  const inner = streamOf(bytes).getReader();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await inner.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel() {
      cancelled = true;
    },
  });
  const read = await readArchive(stream, { chunkHasher: recordingHasher() });
  for await (const chunk of read.chunks()) if (chunk.ordinal === 3) break;
  expect(cancelled).toBe(true);
});

test('a patch read through the batch hasher takes base chunks from getBaseChunk, verified', async () => {
  const base = bigTree(6_000_000, 5);
  const baseIndex = (await packToBytes(base)).result.index;
  const next = bigTree(6_000_000, 5);
  const extra = new Uint8Array(5_000_000);
  fillPseudoRandom(extra, 99);
  addFile(next, 'd.bin', bytesSource(extra));
  const { bytes } = await packToBytes(next, { base: baseIndex });
  const baseChunks = new Map<string, Uint8Array>();
  for (const chunk of (await collect((await readArchive(streamOf((await packToBytes(base)).bytes))).chunks())).chunks) {
    baseChunks.set(toHex(chunk.hash), chunk.bytes);
  }
  const hasher = recordingHasher();
  const read = await collect(
    (await readArchive(streamOf(bytes), { chunkHasher: hasher, getBaseChunk: (hash) => baseChunks.get(toHex(hash)) })).chunks(),
  );
  expect(read.error).toBeUndefined();
  expect(read.chunks.filter((c) => c.fromBase).length).toBe(baseChunks.size);
  expect(read.chunks.filter((c) => !c.fromBase).length).toBeGreaterThan(0);
  expect(hasher.batches.length).toBeGreaterThan(0);

  const wrongBase = await collect(
    (await readArchive(streamOf(bytes), { chunkHasher: recordingHasher(), getBaseChunk: () => new Uint8Array(7) })).chunks(),
  );
  expect(wrongBase.error?.code).toBe('wrong_chunk_hash');
});

test('the hashing thread computes SHA-256 of every view, hashes oversized batches in place, and closes cleanly', async () => {
  const thread = startHashThread({ slots: 2, slotBytes: 300_000 });
  const views = Array.from({ length: 7 }, (_, i) => {
    const bytes = new Uint8Array(1000 + i * 20_000);
    fillPseudoRandom(bytes, i + 1);
    return bytes.subarray(i); // views with offsets
  });
  const expected = views.map((view) => toHex(sha256(view)));
  // More batches than slots at once: later ones wait for a free slot.
  const results = await Promise.all([0, 1, 2, 3].map(() => thread.hashBatch(views.slice(0, 5))));
  for (const digests of results) expect(split(digests)).toEqual(expected.slice(0, 5));
  expect(thread.busy()).toBe(0);
  const oversized = [new Uint8Array(400_000).fill(1)];
  expect(split(await thread.hashBatch(oversized))).toEqual([toHex(sha256(oversized[0]!))]);
  expect(views[3]!.length).toBe(1000 + 3 * 20_000 - 3); // the caller's views are untouched (copied, not moved)
  await thread.close();
  await thread.close();
  // After close: hashed on the calling thread.
  expect(split(await thread.hashBatch(views.slice(0, 2)))).toEqual(expected.slice(0, 2));
});

function split(digests: Uint8Array): string[] {
  return Array.from({ length: digests.length / 32 }, (_, i) => toHex(digests.subarray(32 * i, 32 * i + 32)));
}

test.each([
  ['on the thread', {}],
  ['without a thread (batch too large for a slot)', { slotBytes: 300_000 }],
] as const)('hashAndPlace %s writes verified views only, up to the first wrong digest, and reports a failure', async (_, options) => {
  const dir = mkdtempSync(join(tmpdir(), 'hash-thread-'));
  const thread = startHashThread(options);
  try {
    const views = [0, 1, 2, 3, 4].map((i) => {
      const bytes = new Uint8Array(100_000 + i);
      fillPseudoRandom(bytes, 40 + i);
      return bytes;
    });
    const expected = new Uint8Array(32 * views.length);
    views.forEach((view, i) => expected.set(sha256(view), 32 * i));
    expected[32 * 3]! ^= 1; // view 3 is not what is expected
    writeFileSync(join(dir, 'existing'), new Uint8Array(10));
    const answer = await thread.hashAndPlace(views, expected, [
      { view: 0, path: join(dir, 'a'), offset: 0, mode: 0o755 },
      { view: 1, path: join(dir, 'big'), offset: 0, mode: 0o644 },
      { view: 2, path: join(dir, 'big'), offset: views[1]!.length }, // joined into one write with view 1
      { view: 2, path: join(dir, 'existing'), offset: 10 },
      { view: 3, path: join(dir, 'c'), offset: 0, mode: 0o644 },
      { view: 4, path: join(dir, 'd'), offset: 0, mode: 0o644 },
    ]);
    expect(answer.error).toBeUndefined();
    expect(split(answer.digests)).toEqual(views.map((view) => toHex(sha256(view))));
    expect(Buffer.compare(readFileSync(join(dir, 'a')), Buffer.from(views[0]!))).toBe(0);
    expect(statSync(join(dir, 'a')).mode & 0o777).toBe(0o755);
    expect(statSync(join(dir, 'big')).mode & 0o777).toBe(0o644);
    expect(Buffer.compare(readFileSync(join(dir, 'big')), Buffer.concat([views[1]!, views[2]!]))).toBe(0);
    expect(Buffer.compare(readFileSync(join(dir, 'existing')), Buffer.concat([new Uint8Array(10), views[2]!]))).toBe(0);
    expect(existsSync(join(dir, 'c'))).toBe(false);
    expect(existsSync(join(dir, 'd'))).toBe(false); // after the bad view: not attempted

    // An existing name (or planted link) is refused (O_EXCL) and reported with its path.
    writeFileSync(join(dir, 'taken'), 'keep');
    const good = new Uint8Array(32 * 2);
    views.slice(0, 2).forEach((view, i) => good.set(sha256(view), 32 * i));
    const refused = await thread.hashAndPlace(views.slice(0, 2), good, [
      { view: 0, path: join(dir, 'taken'), offset: 0, mode: 0o644 },
      { view: 1, path: join(dir, 'after'), offset: 0, mode: 0o644 },
    ]);
    expect(refused.error).toMatchObject({ code: 'EEXIST', path: join(dir, 'taken') });
    expect(readFileSync(join(dir, 'taken'), 'utf8')).toBe('keep');
    expect(existsSync(join(dir, 'after'))).toBe(false);
    // A file to write into that does not exist is an error too (no create without a mode).
    const missing = await thread.hashAndPlace(views.slice(0, 1), good.subarray(0, 32), [{ view: 0, path: join(dir, 'nowhere'), offset: 0 }]);
    expect(missing.error).toMatchObject({ code: 'ENOENT' });
  } finally {
    await thread.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('readArchive through the real hashing thread matches the plain reader', async () => {
  const { bytes } = await packToBytes(bigTree(6_000_000, 6), { compression: 1 });
  const thread = startHashThread();
  try {
    const batched = await collect((await readArchive(streamOf(bytes, 65_536), { chunkHasher: thread })).chunks());
    const plain = await collect((await readArchive(streamOf(bytes, 65_536))).chunks());
    expect(batched.error).toBeUndefined();
    expect(batched.chunks.map((c) => toHex(c.hash))).toEqual(plain.chunks.map((c) => toHex(c.hash)));
  } finally {
    await thread.close();
  }
});

test('hashAndPlace does not write through a symlink put where an existing file was', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hash-thread-'));
  const thread = startHashThread();
  try {
    const view = new Uint8Array(50_000).fill(3);
    writeFileSync(join(dir, 'outside'), 'keep');
    symlinkSync(join(dir, 'outside'), join(dir, 'swapped'));
    const answer = await thread.hashAndPlace([view], sha256(view), [{ view: 0, path: join(dir, 'swapped'), offset: 0 }]);
    expect(answer.error?.code).toBe('ELOOP');
    expect(readFileSync(join(dir, 'outside'), 'utf8')).toBe('keep');
  } finally {
    await thread.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the shared hashing thread is one per process, and replaced once it is no longer usable', async () => {
  const first = sharedHashThread();
  expect(sharedHashThread()).toBe(first);
  const view = new Uint8Array(1000).fill(1);
  expect(split(await first.hashBatch([view]))).toEqual([toHex(sha256(view))]);
  await first.close();
  expect(first.usable()).toBe(false);
  const second = sharedHashThread();
  expect(second).not.toBe(first);
  expect(split(await second.hashBatch([view]))).toEqual([toHex(sha256(view))]);
});
