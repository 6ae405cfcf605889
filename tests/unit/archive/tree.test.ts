import { describe, expect, test } from 'bun:test';
import {
  ArchiveError,
  addDirectory,
  addFile,
  addFiles,
  addSymlink,
  bytesSource,
  compareNames,
  createTree,
  explodeDirectory,
  findEntry,
  getEntry,
  moveEntry,
  removeEntry,
  renameEntry,
  setEntrypoint,
  sortedEntries,
  splitPath,
  toggleExecutable,
  MAX_DIRECTORY_ENTRIES,
} from '../../../src/shared/archive/index.ts';
import { insertEntry } from '../../../src/shared/archive/tree.ts';
import { thrownBy } from './support.ts';

const source = (text: string) => bytesSource(new TextEncoder().encode(text));

describe('adding', () => {
  test('backslashes become forward slashes and sizes add up the chain', () => {
    const tree = createTree();
    addFile(tree, 'a\\b\\c.txt', source('12345'));
    addFile(tree, 'a/d.txt', source('123'));
    expect(findEntry(tree, 'a/b/c.txt')?.size).toBe(5);
    expect(getEntry(tree, 'a').size).toBe(8);
    expect(getEntry(tree, 'a/b').size).toBe(5);
    expect(tree.root.size).toBe(8);
  });

  test('a path through a file is path_not_directory naming that file', () => {
    const tree = createTree();
    addFile(tree, 'a/file', source('x'));
    const error = thrownBy(() => addFile(tree, 'a/file/inner', source('y')));
    expect(error).toBeInstanceOf(ArchiveError);
    expect(error.code).toBe('path_not_directory');
    expect(error.path).toBe('a/file');
    expect(thrownBy(() => addDirectory(tree, 'a/file/x')).code).toBe('path_not_directory');
  });

  test('an existing path is file_exists with the path', () => {
    const tree = createTree();
    addFile(tree, 'a/file', source('x'));
    const error = thrownBy(() => addFile(tree, 'a/file', source('y')));
    expect(error.code).toBe('file_exists');
    expect(error.path).toBe('a/file');
    expect(thrownBy(() => addFile(tree, 'a', source('y'))).code).toBe('file_exists');
    expect(thrownBy(() => addSymlink(tree, 'a/file', 'x')).code).toBe('file_exists');
  });

  test.each(['', '/abs', 'C:\\win', 'a/./b', 'a/../b', '..', 'a//b', 'a/', 'nul\0byte', 'lone\uD800'])(
    'refuses the path %p',
    (path) => {
      expect(thrownBy(() => addFile(createTree(), path, source('x'))).code).toBe('invalid_path');
    },
  );

  test('adding a folder places files under its base path', () => {
    const tree = createTree();
    addFiles(tree, 'game', [
      { path: 'bin/run', source: source('#!'), mode: 1 },
      { path: 'data\\level.dat', source: source('lvl') },
    ]);
    expect(getEntry(tree, 'game/bin/run').mode).toBe(1);
    expect(getEntry(tree, 'game/data/level.dat').size).toBe(3);
  });

  test('a directory refuses its 1048576th entry', () => {
    const tree = createTree();
    const directory = addDirectory(tree, 'full');
    // A map that reports being nearly full, instead of a million real entries (seconds of setup).
    let reported = MAX_DIRECTORY_ENTRIES - 3;
    directory.entries = new (class extends Map<string, never> {
      override get size() {
        return reported;
      }
    })();
    addFile(tree, 'full/last-allowed', source(''));
    reported = MAX_DIRECTORY_ENTRIES - 1;
    expect(directory.entries.has('last-allowed')).toBe(true);
    const error = thrownBy(() => addFile(tree, 'full/one-more', source('')));
    expect(error.code).toBe('too_many_entries');
    expect(error.path).toBe('full');
    expect(thrownBy(() => insertEntry(directory, { kind: 'file', name: 'x', size: 0, mode: 0 }, ['full', 'x'])).code).toBe('too_many_entries');
  });
});

describe('order', () => {
  test('entries sort by UTF-8 bytes, not by UTF-16 code units', () => {
    const tree = createTree();
    // U+FF61 (EF BD A1) sorts before U+1F600 (F0 9F 98 80) in bytes; JS string order says the opposite.
    for (const name of ['😀', '\u{FF61}', 'b', 'B', 'a', 'é']) addFile(tree, name, source(''));
    const names = sortedEntries(tree.root).map((entry) => entry.name);
    expect(names).toEqual(['B', 'a', 'b', 'é', '\u{FF61}', '😀']);
    expect(['😀', '\u{FF61}'].sort()).toEqual(['😀', '\u{FF61}']);
  });

  test('compareNames agrees with comparing encoded bytes on random strings', () => {
    const encoder = new TextEncoder();
    const alphabet = ['a', 'z', '\u00e9', '\u{FF61}', '\u{FFFF}', '\u{10000}', '😀', '\u{E000}'];
    let seed = 1;
    const pick = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    for (let i = 0; i < 2000; i++) {
      const make = () => Array.from({ length: pick() % 4 }, () => alphabet[pick() % alphabet.length]).join('');
      const a = make();
      const b = make();
      const ea = encoder.encode(a);
      const eb = encoder.encode(b);
      let bytes = 0;
      for (let k = 0; k < Math.min(ea.length, eb.length) && bytes === 0; k++) bytes = ea[k]! - eb[k]!;
      if (bytes === 0) bytes = ea.length - eb.length;
      expect(Math.sign(compareNames(a, b))).toBe(Math.sign(bytes));
    }
  });
});

describe('editing', () => {
  function sample() {
    const tree = createTree();
    addFile(tree, 'root/bin/game', source('exe!'), { mode: 1 });
    addFile(tree, 'root/data/a.dat', source('aa'));
    addDirectory(tree, 'other');
    setEntrypoint(tree, 'root/bin/game');
    return tree;
  }

  test('move carries sizes and the entrypoint along', () => {
    const tree = sample();
    expect(moveEntry(tree, 'root/bin', 'other')).toEqual({ moved: true });
    expect(findEntry(tree, 'root/bin')).toBeUndefined();
    expect(getEntry(tree, 'other/bin/game').size).toBe(4);
    expect(getEntry(tree, 'other').size).toBe(4);
    expect(getEntry(tree, 'root').size).toBe(2);
    expect(tree.entrypoint).toEqual(['other', 'bin', 'game']);
  });

  test('moving a folder into itself or a descendant is a reported no-op', () => {
    const tree = sample();
    expect(moveEntry(tree, 'root', 'root/bin')).toEqual({ moved: false, reason: 'into_itself' });
    expect(moveEntry(tree, 'root', 'root')).toEqual({ moved: false, reason: 'into_itself' });
    expect(moveEntry(tree, 'root/bin', 'root')).toEqual({ moved: false, reason: 'same_place' });
    expect(getEntry(tree, 'root/bin/game').size).toBe(4);
    expect(tree.root.size).toBe(6);
  });

  test('move onto a taken name is file_exists and changes nothing', () => {
    const tree = sample();
    addFile(tree, 'other/bin', source('zz'));
    expect(thrownBy(() => moveEntry(tree, 'root/bin', 'other')).code).toBe('file_exists');
    expect(getEntry(tree, 'root/bin/game').size).toBe(4);
    expect(thrownBy(() => moveEntry(tree, 'root/bin', 'other/bin')).code).toBe('path_not_directory');
  });

  test('remove drops sizes and an entrypoint inside', () => {
    const tree = sample();
    removeEntry(tree, 'root/bin');
    expect(tree.root.size).toBe(2);
    expect(tree.entrypoint).toBeUndefined();
    expect(thrownBy(() => removeEntry(tree, 'root/bin')).code).toBe('invalid_path');
  });

  test('explodeDirectory lifts the contents, also a child with the folder name', () => {
    const tree = sample();
    addFile(tree, 'root/root', source('same name'));
    explodeDirectory(tree, 'root');
    expect(sortedEntries(tree.root).map((e) => e.name)).toEqual(['bin', 'data', 'other', 'root']);
    expect(getEntry(tree, 'root').kind).toBe('file');
    expect(tree.entrypoint).toEqual(['bin', 'game']);
    expect(tree.root.size).toBe(15);
  });

  test('explodeDirectory with a clash is file_exists before anything moves', () => {
    const tree = sample();
    addFile(tree, 'bin', source('clash'));
    const error = thrownBy(() => explodeDirectory(tree, 'root'));
    expect(error.code).toBe('file_exists');
    expect(error.path).toBe('bin');
    expect(getEntry(tree, 'root/bin/game').kind).toBe('file');
  });

  test('toggleExecutable flips bit 1 and keeps the reserved bit', () => {
    const tree = createTree();
    addFile(tree, 'f', source('x'), { mode: 2 });
    expect(toggleExecutable(tree, 'f')).toBe(true);
    expect(getEntry(tree, 'f').mode).toBe(3);
    expect(toggleExecutable(tree, 'f')).toBe(false);
    expect(getEntry(tree, 'f').mode).toBe(2);
    addDirectory(tree, 'd');
    expect(thrownBy(() => toggleExecutable(tree, 'd')).code).toBe('invalid_path');
  });

  test('rename keeps the entrypoint and refuses taken names', () => {
    const tree = sample();
    renameEntry(tree, 'root/bin', 'binaries');
    expect(tree.entrypoint).toEqual(['root', 'binaries', 'game']);
    expect(thrownBy(() => renameEntry(tree, 'root/binaries', 'data')).code).toBe('file_exists');
    expect(thrownBy(() => renameEntry(tree, 'root/binaries', '..')).code).toBe('invalid_path');
  });

  test('entrypoint must exist and not be a folder', () => {
    const tree = sample();
    expect(thrownBy(() => setEntrypoint(tree, 'nope')).code).toBe('invalid_path');
    expect(thrownBy(() => setEntrypoint(tree, 'root')).code).toBe('invalid_path');
    setEntrypoint(tree, undefined);
    expect(tree.entrypoint).toBeUndefined();
    expect(splitPath('a\\b/c')).toEqual(['a', 'b', 'c']);
  });
});
