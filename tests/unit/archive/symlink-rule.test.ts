import { describe, expect, test } from 'bun:test';
import {
  ArchiveError,
  MAX_LINK_HOPS,
  addDirectory,
  addFile,
  addSymlink,
  bytesSource,
  checkSymlinks,
  createTree,
  readArchive,
  type ArchiveTree,
  type FileSource,
} from '../../../src/shared/archive/index.ts';
import { packIgnoringLinkRule } from '../../support/archive-craft.ts';
import { packToBytes, readBack, rejectionOf, streamOf, thrownBy } from './support.ts';

const text = (s: string) => bytesSource(new TextEncoder().encode(s));

/** A source that fails the test if anything reads it: the writer must refuse before pass 1. */
const unreadable: FileSource = {
  size: 4,
  stream() {
    throw new Error('the writer read a file of a tree it must refuse');
  },
};

function treeWith(links: [string, string][], files: string[] = [], dirs: string[] = []): ArchiveTree {
  const tree = createTree();
  for (const dir of dirs) addDirectory(tree, dir);
  for (const file of files) addFile(tree, file, text(file));
  for (const [path, target] of links) addSymlink(tree, path, target);
  return tree;
}

/** The same verdict from the rule itself, the reader (what the server runs at finalize) and the writer. */
async function expectRefused(tree: ArchiveTree, path: string): Promise<void> {
  const direct = thrownBy(() => checkSymlinks(tree.root));
  expect(direct).toBeInstanceOf(ArchiveError);
  expect(direct).toMatchObject({ code: 'path_outside_target', path });
  const read = await rejectionOf(readArchive(streamOf(await packIgnoringLinkRule(tree))));
  expect(read).toMatchObject({ code: 'path_outside_target', path });
  addFile(tree, 'zz-never-read', unreadable);
  const packed = await rejectionOf(packToBytes(tree));
  expect(packed).toMatchObject({ code: 'path_outside_target', path });
}

async function expectAccepted(tree: ArchiveTree): Promise<void> {
  expect(() => checkSymlinks(tree.root)).not.toThrow();
  const { bytes } = await packToBytes(tree);
  const { read } = await readBack(bytes);
  expect(read.index.root.entries.size).toBe(tree.root.entries.size);
}

describe('the shared symlink rule refuses links that leave the tree', () => {
  test.each([
    ['a deep parent escape', 'passwd', '../../../../etc/passwd'],
    ['an absolute target', 'passwd', '/etc/passwd'],
    ['a Windows drive with a backslash', 'windows', 'C:\\Windows'],
    ['a Windows drive with a slash', 'windows', 'C:/Windows'],
    ['a drive-relative target', 'windows', 'C:Windows'],
    ['backslashes as separators', 'data/back', '..\\..\\x'],
    ['backslashes that stay inside', 'data/back', 'x\\y'],
    ['one level above a subfolder', 'd/up', '../..'],
    ['the parent of the root', 'top', '..'],
    ['a parent escape after going down', 'a/b/evil', 'c/../../../../x'],
  ])('%s', async (_, path, target) => {
    await expectRefused(treeWith([[path, target]], ['a/b/keep', 'data/x/y']), path);
  });

  test('a chain: each link alone stays inside, together they leave (sub/up → .., escape → sub/up/..)', async () => {
    await expectRefused(treeWith([['sub/up', '..'], ['escape', 'sub/up/..']]), 'escape');
  });

  test('a chain two links deep that lexically stays inside', async () => {
    // l1 → a/l2 → '..' is the root; 'l1/l1/..' reads as 'l1' but the OS resolves it above the root.
    await expectRefused(treeWith([['a/l2', '..'], ['l1', 'a/l2'], ['esc', 'l1/l1/..']]), 'esc');
  });

  test('the error names the link whose own target leads out, even when reached through another', async () => {
    await expectRefused(treeWith([['a', 'b/x'], ['b', '../..']]), 'b');
  });

  test.each([
    ['two links pointing at each other', [['a', 'b/x'], ['b', 'a/y']], 'a'],
    ['a link to itself', [['self', 'self']], 'self'],
    ['a link through itself', [['me', 'me/..']], 'me'],
  ] as [string, [string, string][], string][])('a loop: %s', async (_, links, path) => {
    await expectRefused(treeWith(links), path);
  });

  test(`a chain of ${MAX_LINK_HOPS} links is followed, ${MAX_LINK_HOPS + 1} is a loop`, async () => {
    const chain = (length: number): [string, string][] => [
      ...Array.from({ length }, (_, i): [string, string] => [`l${String(i).padStart(2, '0')}`, `l${String(i + 1).padStart(2, '0')}`]),
      [`l${String(length).padStart(2, '0')}`, 'file'],
    ];
    await expectAccepted(treeWith(chain(MAX_LINK_HOPS), ['file']));
    await expectRefused(treeWith(chain(MAX_LINK_HOPS + 1), ['file']), 'l00');
  });
});

describe('links that stay inside are still accepted', () => {
  test('a library version link (lib/libfoo.so → libfoo.so.1)', async () => {
    await expectAccepted(treeWith([['lib/libfoo.so', 'libfoo.so.1']], ['lib/libfoo.so.1']));
  });

  test('a sibling folder through its parent (a/b → ../c)', async () => {
    await expectAccepted(treeWith([['a/b', '../c']], ['c/data.txt']));
  });

  test('a macOS framework: a chain through another link', async () => {
    await expectAccepted(
      treeWith([
        ['Game.framework/Versions/Current', 'A'],
        ['Game.framework/Game', 'Versions/Current/Game'],
        ['Game.framework/Resources', 'Versions/Current/Resources'],
      ], ['Game.framework/Versions/A/Game', 'Game.framework/Versions/A/Resources/icon.png']),
    );
  });

  test('the root itself, dangling names, "." and empty pieces', async () => {
    await expectAccepted(treeWith([['d/up', '..'], ['dangling', 'missing/file'], ['dots', './x/./y//z'], ['d/back', '../d/../d/x']]));
  });
});

/** Linear work on hostile shapes: a blow-up would run into the test's timeout (speed itself is bench:archive's). */
describe('hostile shapes finish', () => {
  test('5000 links each naming a file 1000 folders down, and a 10,000-link chain', async () => {
    const tree = createTree();
    const deep = Array.from({ length: 1000 }, () => 'd').join('/');
    addFile(tree, `${deep}/f`, text('f'));
    for (let i = 0; i < 5000; i++) addSymlink(tree, `links/l${i}`, `../${deep}/f`);
    checkSymlinks(tree.root);
    const { read } = await readBack(await packIgnoringLinkRule(tree));
    expect(read.index.root.entries.size).toBe(2);

    const chain = createTree();
    for (let i = 0; i < 10_000; i++) addSymlink(chain, `c${i}`, `c${i + 1}/x`);
    expect(thrownBy(() => checkSymlinks(chain.root))).toMatchObject({ code: 'path_outside_target', path: 'c0' });
    expect(await rejectionOf(readArchive(streamOf(await packIgnoringLinkRule(chain))))).toMatchObject({ code: 'path_outside_target' });
  }, 20_000);
});
