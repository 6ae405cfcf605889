import { describe, expect, test } from 'bun:test';
import { addDirectory, addFile, addSymlink, bytesSource, createTree, describeBadName, renameEntry, shownPath, splitPath } from '../../../src/shared/archive/index.ts';
import { sanitizeFileName } from '../../../src/shared/packages/file-name.ts';
import { thrownBy } from './support.ts';

/**
 * Issue 28: names with bidirectional controls ('photo\u202Egnp.exe' displays as 'photoexe.png') are
 * refused by the one rule for names (shared/archive/paths.ts describeBadName), which the browser, the
 * CLI, the helper (building trees), the server (reading indexes at finalize) and the ZIP writer apply.
 */
const controls = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];
const hex = (char: string) => char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');

describe('the shared name rule', () => {
  test.each(controls.map((char) => [hex(char), char]))('U+%s is refused, the name shown escaped', (code, char) => {
    expect(describeBadName(`photo${char}gnp.exe`)).toBe(`name 'photo\\u${code}gnp.exe' holds the bidirectional control U+${code}, which can make it display as another name`);
  });

  test('every way into a tree refuses it, naming the path: files, folders, links, renames, paths', () => {
    const tree = createTree();
    addFile(tree, 'shots/photo.png', bytesSource(new Uint8Array(1)));
    for (const action of [
      () => addFile(tree, 'shots/photo\u202egnp.exe', bytesSource(new Uint8Array(1))),
      () => addDirectory(tree, ['saves\u2067']),
      () => addSymlink(tree, 'link\u200f', 'shots'),
      () => splitPath('a/b\u202d/c'),
    ]) {
      expect(thrownBy(action)).toMatchObject({ code: 'invalid_path' });
    }
    expect(thrownBy(() => addFile(tree, 'shots/photo\u202egnp.exe', bytesSource(new Uint8Array(1))))).toMatchObject({ path: 'shots/photo\u202egnp.exe' });
    expect(thrownBy(() => renameEntry(tree, 'shots/photo.png', 'photo\u202egnp.exe'))).toMatchObject({ code: 'invalid_path' });
    expect([...tree.root.entries.keys()]).toEqual(['shots']);
  });

  test('ordinary right-to-left names stay allowed (Arabic, Hebrew, with digits and extensions)', () => {
    for (const name of ['لعبة.exe', 'משחק 2.png', 'ملف_١٢.txt']) expect(describeBadName(name)).toBeUndefined();
  });

  test('shownPath escapes controls and bidi controls only; download names still drop them', () => {
    expect(shownPath('a\u202eb\u0007c/d é')).toBe('a\\u202Eb\\u0007c/d é');
    expect(sanitizeFileName('photo\u202egnp.exe')).toBe('photognp.exe');
  });
});
