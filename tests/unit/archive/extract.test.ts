import { afterEach, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { lstat, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArchiveError, addFile, addSymlink, bytesSource, createTree, readArchive, type ArchiveTree } from '../../../src/shared/archive/index.ts';
import { extractArchive } from '../../../src/shared/archive/extract.ts';
import { packIgnoringLinkRule } from '../../support/archive-craft.ts';
import { createRandom, fillPseudoRandom, packToBytes, randomBytes, rejectionOf, streamOf } from './support.ts';

const made: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'archive-extract-'));
  made.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const text = (s: string) => bytesSource(new TextEncoder().encode(s));

async function extractTree(tree: ArchiveTree, target: string): Promise<void> {
  const { bytes } = await packToBytes(tree);
  await extractArchive(streamOf(bytes), target);
}

test('extracts files with modes, shared chunks, empty files and symlinks', async () => {
  const big = new Uint8Array(900_000);
  fillPseudoRandom(big, 8);
  const tree = createTree();
  addFile(tree, 'bin/game', text('#!/bin/sh\necho play\n'), { mode: 1 });
  addFile(tree, 'data/a.pak', bytesSource(big));
  addFile(tree, 'data/copy-of-a.pak', bytesSource(big));
  addFile(tree, 'empty', bytesSource(new Uint8Array(0)));
  addSymlink(tree, 'current', 'data/a.pak');
  addSymlink(tree, 'data/up', '../bin/game');
  const root = await tempDir();
  const target = join(root, 'out');
  await extractTree(tree, target);
  expect((await stat(join(target, 'bin/game'))).mode & 0o777).toBe(0o755);
  expect((await stat(join(target, 'data/a.pak'))).mode & 0o777).toBe(0o644);
  expect(Buffer.compare(await readFile(join(target, 'data/copy-of-a.pak')), Buffer.from(big))).toBe(0);
  expect((await readFile(join(target, 'empty'))).length).toBe(0);
  expect(await readlink(join(target, 'current'))).toBe('data/a.pak');
  expect(await readFile(join(target, 'data/up'), 'utf8')).toBe('#!/bin/sh\necho play\n');
});

/** Extracts an archive the writer would refuse (its links): the reader must refuse it first. */
async function extractUnchecked(tree: ArchiveTree, target: string): Promise<void> {
  await extractArchive(streamOf(await packIgnoringLinkRule(tree)), target);
}

async function leftIn(dir: string): Promise<string[]> {
  return existsSync(dir) ? readdir(dir) : [];
}

test.each([
  ['parent escape', 'evil', '../outside'],
  ['deep parent escape', 'a/b/evil', '../../../x'],
  ['absolute target', 'evil', '/etc/passwd'],
  ['windows absolute target', 'evil', 'C:\\Windows'],
])('refuses a symlink with %s, from a stream (the reader) and from a read result (its own check)', async (_, path, target) => {
  const tree = createTree();
  addFile(tree, 'a/b/keep', text('k'));
  const safe = (await packToBytes(tree)).bytes;
  addSymlink(tree, path, target);
  const root = await tempDir();
  const fromStream = await rejectionOf(extractUnchecked(tree, join(root, 'out')));
  expect(fromStream).toBeInstanceOf(ArchiveError);
  expect(fromStream).toMatchObject({ code: 'path_outside_target', path });
  expect(await leftIn(join(root, 'out'))).toEqual([]);
  // An index changed after reading (a caller's own result): the extractor applies the same rule itself.
  const read = await readArchive(streamOf(safe));
  addSymlink({ root: read.index.root }, path, target);
  const error = await rejectionOf(extractArchive(read, join(root, 'out2')));
  expect(error).toBeInstanceOf(ArchiveError);
  expect(error.code).toBe('path_outside_target');
  expect(error.path).toBe(path);
  // Refused before anything is written.
  expect(await readdir(join(root, 'out2'))).toEqual([]);
});

test('refuses a symlink that escapes through another link (a chain)', async () => {
  const tree = createTree();
  // sub/up → '..' is the root (fine alone); 'escape' → 'sub/up/..' goes above the root through it.
  addSymlink(tree, 'sub/up', '..');
  addSymlink(tree, 'escape', 'sub/up/..');
  const root = await tempDir();
  const error = await rejectionOf(extractUnchecked(tree, join(root, 'out')));
  expect(error.code).toBe('path_outside_target');
  expect(error.path).toBe('escape');
  expect(await leftIn(join(root, 'out'))).toEqual([]);
});

test('accepts link chains that stay inside (macOS framework layout) and refuses loops', async () => {
  const tree = createTree();
  addFile(tree, 'Game.framework/Versions/A/Game', text('bin'), { mode: 1 });
  addSymlink(tree, 'Game.framework/Versions/Current', 'A');
  addSymlink(tree, 'Game.framework/Game', 'Versions/Current/Game');
  const root = await tempDir();
  await extractTree(tree, join(root, 'ok'));
  expect(await readFile(join(root, 'ok/Game.framework/Game'), 'utf8')).toBe('bin');

  const loop = createTree();
  addSymlink(loop, 'a', 'b/x');
  addSymlink(loop, 'b', 'a/y');
  const error = await rejectionOf(extractUnchecked(loop, join(root, 'loop')));
  expect(error.code).toBe('path_outside_target');
});

test('refuses a target that is not empty (a planted link could redirect writes)', async () => {
  const root = await tempDir();
  await writeFile(join(root, 'planted'), 'x');
  const tree = createTree();
  addFile(tree, 'f', text('f'));
  const error = await rejectionOf(extractTree(tree, root));
  expect(error.code).toBe('file_exists');
  expect((await lstat(join(root, 'planted'))).isFile()).toBe(true);
});

test('a patch without its base fails with missing_chunk', async () => {
  const base = createTree();
  addFile(base, 'f', text('same'));
  const next = createTree();
  addFile(next, 'f', text('same'));
  addFile(next, 'g', text('new'));
  const baseIndex = (await packToBytes(base)).result.index;
  const { bytes } = await packToBytes(next, { base: baseIndex });
  const root = await tempDir();
  const error = await rejectionOf(extractArchive(await readArchive(streamOf(bytes)), join(root, 'out')));
  expect(error.code).toBe('missing_chunk');
});

/** Files of one repeated chunk and copies, written through a handle cache far smaller than the tree. */
test('a chunk shared by many files (and many times in one file) is written everywhere, through a tiny handle cache', async () => {
  const piece = new Uint8Array(40_000);
  fillPseudoRandom(piece, 21);
  // Fixed chunking cuts every 256 KiB: a file of 4 identical 256 KiB blocks is one chunk at 4 offsets.
  const block = new Uint8Array(262_144);
  fillPseudoRandom(block, 22);
  const repeated = new Uint8Array(4 * block.length + 1000);
  for (let i = 0; i < 4; i++) repeated.set(block, i * block.length);
  repeated.fill(7, 4 * block.length);
  const tree = createTree();
  for (let i = 0; i < 40; i++) addFile(tree, `copies/c${String(i).padStart(2, '0')}.bin`, bytesSource(piece), { mode: i % 3 === 0 ? 1 : 0 });
  addFile(tree, 'repeated.bin', bytesSource(repeated));
  addFile(tree, 'z/last.bin', bytesSource(piece));
  const { bytes } = await packToBytes(tree, { chunking: 0 });
  const root = await tempDir();
  const target = join(root, 'out');
  await extractArchive(streamOf(bytes), target, { maxOpenFiles: 2 });
  for (let i = 0; i < 40; i++) {
    const path = join(target, `copies/c${String(i).padStart(2, '0')}.bin`);
    expect(Buffer.compare(await readFile(path), Buffer.from(piece))).toBe(0);
    expect((await stat(path)).mode & 0o777).toBe(i % 3 === 0 ? 0o755 : 0o644);
  }
  expect(Buffer.compare(await readFile(join(target, 'repeated.bin')), Buffer.from(repeated))).toBe(0);
  expect(Buffer.compare(await readFile(join(target, 'z/last.bin')), Buffer.from(piece))).toBe(0);
});

/** A tree of a few MiB: above the reader's batch threshold, so chunks are hashed on the hashing thread. */
function largeTree(seed: number): { tree: ArchiveTree; files: Map<string, Uint8Array> } {
  const random = createRandom(seed);
  const tree = createTree();
  const files = new Map<string, Uint8Array>();
  const big = new Uint8Array(3_500_000);
  fillPseudoRandom(big, seed);
  const add = (path: string, data: Uint8Array, mode = 0): void => {
    addFile(tree, path, bytesSource(data), { mode });
    files.set(path, data);
  };
  add('data/big.pak', big);
  add('data/big-copy.pak', big); // deduplicated: written twice from one read
  for (let i = 0; i < 60; i++) add(`small/f${i}.txt`, randomBytes(random, Math.floor(random() * 20_000)), i % 5 === 0 ? 1 : 0);
  add('empty', new Uint8Array(0));
  const tail = new Uint8Array(1_200_000);
  fillPseudoRandom(tail, seed + 1);
  add('zz/tail.bin', tail);
  return { tree, files };
}

test.each([
  ['uncompressed', 0],
  ['zstd', 1],
] as const)('extracts a multi-MiB %s archive from a stream (hashing thread) exactly, through a small handle cache', async (_, compression) => {
  const { tree, files } = largeTree(5);
  const { bytes } = await packToBytes(tree, { compression });
  const root = await tempDir();
  const target = join(root, 'out');
  // Pieces of 64 KiB: many chunks straddle pieces.
  await extractArchive(streamOf(bytes, 65_536), target, { maxOpenFiles: 3 });
  for (const [path, data] of files) {
    expect(Buffer.compare(await readFile(join(target, path)), Buffer.from(data))).toBe(0);
  }
  expect((await stat(join(target, 'small/f0.txt'))).mode & 0o777).toBe(0o755);
  expect((await stat(join(target, 'small/f1.txt'))).mode & 0o777).toBe(0o644);
});

test('a damaged chunk or a cut stream in a multi-MiB archive fails with its code, after the chunks before it were written', async () => {
  const { tree, files } = largeTree(6);
  const { bytes, result } = await packToBytes(tree);
  // Flip a byte inside the last file's data (the archive ends with it).
  const damaged = bytes.slice();
  damaged[damaged.length - 10]! ^= 0xff;
  const root = await tempDir();
  const error = await rejectionOf(extractArchive(streamOf(damaged, 100_000), join(root, 'damaged')));
  expect(error).toBeInstanceOf(ArchiveError);
  expect(error.code).toBe('wrong_chunk_hash');
  expect(Buffer.compare(await readFile(join(root, 'damaged/data/big.pak')), Buffer.from(files.get('data/big.pak')!))).toBe(0);

  const cut = await rejectionOf(extractArchive(streamOf(bytes.subarray(0, bytes.length - 5000), 100_000), join(root, 'cut')));
  expect(cut.code).toBe('archive_ended');
  expect(Buffer.compare(await readFile(join(root, 'cut/data/big-copy.pak')), Buffer.from(files.get('data/big.pak')!))).toBe(0);

  const longer = new Uint8Array(bytes.length + 3);
  longer.set(bytes);
  expect((await rejectionOf(extractArchive(streamOf(longer, 100_000), join(root, 'long')))).code).toBe('invalid_entry');
  expect(result.totalSize).toBe(bytes.length);
});

test('modes are exact whatever the umask (0o755 / 0o644, never narrowed)', async () => {
  const tree = createTree();
  addFile(tree, 'run', text('#!/bin/sh\n'), { mode: 1 });
  addFile(tree, 'data', text('d'));
  addFile(tree, 'empty', bytesSource(new Uint8Array(0)), { mode: 1 });
  const root = await tempDir();
  const previous = process.umask(0o077);
  try {
    await extractTree(tree, join(root, 'out'));
  } finally {
    process.umask(previous);
  }
  expect((await stat(join(root, 'out/run'))).mode & 0o777).toBe(0o755);
  expect((await stat(join(root, 'out/data'))).mode & 0o777).toBe(0o644);
  expect((await stat(join(root, 'out/empty'))).mode & 0o777).toBe(0o755);
});

test('a file planted inside the target during extraction is not followed or overwritten (O_EXCL)', async () => {
  const tree = createTree();
  addFile(tree, 'a', text('a'));
  const read = await readArchive(streamOf((await packToBytes(tree)).bytes));
  const root = await tempDir();
  const target = join(root, 'out');
  const outside = join(root, 'outside');
  await writeFile(outside, 'keep');
  // A result whose chunks plant a link where the file goes, before the extractor creates it.
  const planted = {
    ...read,
    async *chunks() {
      await symlink(outside, join(target, 'a'));
      yield* read.chunks();
    },
  };
  const error = await rejectionOf(extractArchive(planted, target));
  expect(error.code).toBe('write_failed');
  expect(await readFile(outside, 'utf8')).toBe('keep');
});

test('a file planted in the target during a multi-MiB extraction is not overwritten: write_failed naming it', async () => {
  const { tree } = largeTree(7);
  const { bytes } = await packToBytes(tree);
  const root = await tempDir();
  const target = join(root, 'out');
  const inner = streamOf(bytes, 200_000).getReader();
  let planted = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Once the folders are laid out (the chunk data is being read), before any small file exists.
      if (!planted && existsSync(join(target, 'small'))) {
        planted = true;
        await writeFile(join(target, 'small/f59.txt'), 'planted');
      }
      const next = await inner.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
  const error = await rejectionOf(extractArchive(stream, target));
  expect(planted).toBe(true);
  expect(error).toBeInstanceOf(ArchiveError);
  expect(error).toMatchObject({ code: 'write_failed', path: 'small/f59.txt' });
  expect(await readFile(join(target, 'small/f59.txt'), 'utf8')).toBe('planted');
});

test('a file planted during a small extraction (no hashing thread) fails with write_failed naming it', async () => {
  const tree = createTree();
  addFile(tree, 'a', text('a'.repeat(3000)));
  addFile(tree, 'd/b', text('b'.repeat(3000)));
  const { bytes } = await packToBytes(tree);
  const root = await tempDir();
  const target = join(root, 'out');
  const inner = streamOf(bytes, 500).getReader();
  let planted = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!planted && existsSync(join(target, 'd'))) {
        planted = true;
        await writeFile(join(target, 'd/b'), 'planted');
      }
      const next = await inner.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
  const error = await rejectionOf(extractArchive(stream, target));
  expect(planted).toBe(true);
  expect(error).toMatchObject({ code: 'write_failed', path: 'd/b' });
  expect(await readFile(join(target, 'd/b'), 'utf8')).toBe('planted');
});
