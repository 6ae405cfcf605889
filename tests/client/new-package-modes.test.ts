import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { addFile, createTree, findEntry, moveEntry, addDirectory, toggleExecutable, type ArchiveDirectory, type ArchiveTree } from '../../src/shared/archive/index.ts';
import { chooseMode, hasUnsniffed, programsOf, sniffSources, syncModes } from '../../src/client/dialogs/new-package/file-modes.ts';

/** Files as a browser hands them over: Blobs without any mode. */
const elf = () => new File([readFileSync('/bin/true')], 'x');
const script = () => new File(['#!/bin/sh\nexec ./hopper\n'], 'x');
const data = (text = 'data') => new File([text], 'x');

async function pickedTree(files: Record<string, File>): Promise<ArchiveTree> {
  const tree = createTree();
  for (const [path, file] of Object.entries(files)) addFile(tree, path, file);
  await sniffSources(Object.values(files));
  return tree;
}

/** A base package's index root: `*` marks a file executable. */
function baseRoot(paths: string[]): ArchiveDirectory {
  const tree = createTree();
  for (const path of paths) addFile(tree, path.replace(/\*$/, ''), data(), { mode: path.endsWith('*') ? 1 : 0 });
  return tree.root;
}

const mode = (tree: ArchiveTree, path: string) => (findEntry(tree, path) as { mode: number }).mode;

describe('executable bits the new package dialog decides', () => {
  test('programs by their heads: an extensionless ELF and a #! script get the bit, data does not', async () => {
    const tree = await pickedTree({ hopper: elf(), start: script(), 'level.pck': data() });
    expect([...programsOf(tree).keys()].sort()).toEqual(['hopper', 'start']);
    expect(syncModes(tree, null, false)).toBe(true);
    // Asking changes nothing.
    expect(mode(tree, 'hopper')).toBe(0);
    expect(syncModes(tree, null, true)).toBe(true);
    expect([mode(tree, 'hopper'), mode(tree, 'start'), mode(tree, 'level.pck')]).toEqual([1, 1, 0]);
    expect(syncModes(tree, null, false)).toBe(false);
  });

  test('a file not read yet keeps Create waiting; an empty file needs no reading', async () => {
    const tree = createTree();
    const later = data('later');
    addFile(tree, 'later.bin', later);
    addFile(tree, 'empty', new File([], 'empty'));
    expect(hasUnsniffed(tree)).toBe(true);
    await sniffSources([later]);
    expect(hasUnsniffed(tree)).toBe(false);
  });

  test('an update takes the bit of the same path in its base, for files nothing else decides', async () => {
    const tree = await pickedTree({ 'bin/run-game': data('v2'), 'notes.txt': data(), 'new-tool': data() });
    const base = baseRoot(['bin/run-game*', 'notes.txt', 'gone*']);
    expect(syncModes(tree, base, true)).toBe(true);
    expect([mode(tree, 'bin/run-game'), mode(tree, 'notes.txt'), mode(tree, 'new-tool')]).toEqual([1, 0, 0]);
    // Another base without it (the tags changed): the bit it gave is taken back.
    expect(syncModes(tree, baseRoot(['bin/run-game']), true)).toBe(true);
    expect(mode(tree, 'bin/run-game')).toBe(0);
    // No base at all: nothing left to take back.
    expect(syncModes(tree, null, false)).toBe(false);
  });

  test('a moved file follows its new path in the base', async () => {
    const tree = await pickedTree({ 'run-game': data() });
    const base = baseRoot(['bin/run-game*']);
    expect(syncModes(tree, base, false)).toBe(false);
    addDirectory(tree, 'bin');
    moveEntry(tree, 'run-game', 'bin');
    expect(syncModes(tree, base, true)).toBe(true);
    expect(mode(tree, 'bin/run-game')).toBe(1);
  });

  test("the developer's choice wins over the header and the base, and stays", async () => {
    const tree = await pickedTree({ hopper: elf(), 'run-game': data() });
    syncModes(tree, baseRoot(['run-game*']), true);
    for (const path of ['hopper', 'run-game']) {
      toggleExecutable(tree, path);
      chooseMode(tree, [path]);
    }
    expect([mode(tree, 'hopper'), mode(tree, 'run-game')]).toEqual([0, 0]);
    expect(syncModes(tree, baseRoot(['run-game*']), false)).toBe(false);
    expect(syncModes(tree, null, false)).toBe(false);
  });
});
