import { afterEach, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { lstat, mkdtemp, readFile, readlink, rm, stat, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArchiveError, addFile, addSymlink, bytesSource, createTree, readArchive, type ArchiveTree } from '../../../src/shared/archive/index.ts';
import { extractArchive } from '../../../src/shared/archive/extract.ts';
import { packIgnoringLinkRule } from '../../support/archive-craft.ts';
import { fillPseudoRandom, packToBytes, rejectionOf, streamOf } from './support.ts';

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
