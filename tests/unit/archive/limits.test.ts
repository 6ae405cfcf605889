import { describe, expect, test } from 'bun:test';
import {
  ArchiveError,
  addFile,
  addSymlink,
  bytesSource,
  createDirectory,
  createTree,
  readArchive,
  readAllFiles,
  splitPath,
  type ArchiveTree,
} from '../../../src/shared/archive/index.ts';
import { craftArchive, encodeFields, nestedFileIndex, sha256 } from '../../support/archive-craft.ts';
import { packToBytes, readBack, rejectionOf, streamOf, thrownBy } from './support.ts';

const hello = new TextEncoder().encode('hello');
const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

/** Directory names of 240 bytes and a last name making the whole path `total` bytes long. */
function namesOfPath(total: number): string[] {
  const names = Array.from({ length: 16 }, (_, i) => `${String.fromCharCode(97 + i)}`.repeat(240));
  const used = 16 * 240 + 16;
  return [...names, 'z'.repeat(total - used)];
}

async function readCrafted(index: Uint8Array): Promise<Map<string, Uint8Array>> {
  return readAllFiles(await readArchive(streamOf(craftArchive(index, { data: hello }))));
}

describe('the reader limits names to 255 UTF-8 bytes and paths to 4096', () => {
  test.each([
    ['255 ASCII bytes', 'n'.repeat(255), true],
    ['256 ASCII bytes', 'n'.repeat(256), false],
    ['85 three-byte characters (255 bytes)', '日'.repeat(85), true],
    ['86 three-byte characters (258 bytes, 86 characters)', '日'.repeat(86), false],
    ['63 four-byte emoji and 3 bytes (255 bytes)', `${'😀'.repeat(63)}abc`, true],
  ])('a name of %s', async (_, name, accepted) => {
    const index = nestedFileIndex(['dir', name], hello);
    if (accepted) {
      expect((await readCrafted(index)).get(`dir/${name}`)).toEqual(hello);
      return;
    }
    const error = await rejectionOf(readCrafted(index));
    expect(error).toBeInstanceOf(ArchiveError);
    expect(error).toMatchObject({ code: 'invalid_entry', path: `dir/${name}` });
  });

  test('a whole path of 4096 bytes reads, 4097 is invalid_entry naming it', async () => {
    const fits = namesOfPath(4096);
    expect(utf8Bytes(fits.join('/'))).toBe(4096);
    expect((await readCrafted(nestedFileIndex(fits, hello))).get(fits.join('/'))).toEqual(hello);
    const over = namesOfPath(4097);
    expect(utf8Bytes(over.join('/'))).toBe(4097);
    expect(await rejectionOf(readCrafted(nestedFileIndex(over, hello)))).toMatchObject({ code: 'invalid_entry', path: over.join('/') });
  });

  test('a symlink target above 4096 bytes is invalid_entry', async () => {
    for (const [target, accepted] of [['a/'.repeat(2048), true], [`${'a/'.repeat(2048)}b`, false]] as const) {
      const bytes = craftArchive(encodeFields(1, 0, 0, 1, 2, 'link', 0, target));
      if (accepted) expect((await readArchive(streamOf(bytes))).index.root.entries.get('link')).toMatchObject({ kind: 'symlink', target });
      else expect(await rejectionOf(readArchive(streamOf(bytes)))).toMatchObject({ code: 'invalid_entry', path: 'link' });
    }
  });

  test.each([
    ['.', '.'],
    ['..', '..'],
    ['empty', ''],
    ['NUL', 'a\0b'],
    ['slash', 'a/b'],
    ['backslash', 'a\\b'],
  ])('a name that is %s is invalid_entry', async (_, name) => {
    const index = encodeFields(1, 0, 0, 1, 1, name, 0, 5, 1, sha256(hello), 5, 5);
    expect(await rejectionOf(readCrafted(index))).toMatchObject({ code: 'invalid_entry' });
  });

  test('a 100,000-byte name is refused at once', async () => {
    const started = performance.now();
    const error = await rejectionOf(readCrafted(nestedFileIndex(['x'.repeat(100_000)], hello)));
    expect(error).toMatchObject({ code: 'invalid_entry' });
    expect((error as Error).message).toContain('100000 bytes');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('the tree and the writer apply the same limits', () => {
  test('adding a name of 256 bytes or a path of 4097 is invalid_path; 255 and 4096 are fine', async () => {
    const tree = createTree();
    addFile(tree, ['ok', 'n'.repeat(255)], bytesSource(hello));
    addFile(tree, namesOfPath(4096), bytesSource(hello));
    expect(thrownBy(() => addFile(tree, ['bad', 'n'.repeat(256)], bytesSource(hello)))).toMatchObject({ code: 'invalid_path' });
    expect(thrownBy(() => addFile(tree, namesOfPath(4097), bytesSource(hello)))).toMatchObject({ code: 'invalid_path' });
    expect(thrownBy(() => splitPath(`${'d/'.repeat(2048)}x`))).toMatchObject({ code: 'invalid_path' });
    expect(thrownBy(() => addSymlink(tree, 'link', 'a/'.repeat(2049)))).toMatchObject({ code: 'invalid_path' });
    const { files } = await readBack((await packToBytes(tree)).bytes);
    expect(files.get(namesOfPath(4096).join('/'))).toEqual(hello);
  });

  test('a tree built by hand around the tree functions is refused by the writer (invalid_entry)', async () => {
    const longName: ArchiveTree = createTree();
    longName.root.entries.set('n'.repeat(256), { kind: 'file', name: 'n'.repeat(256), size: 5, mode: 0, source: bytesSource(hello) });
    longName.root.size = 5;
    expect(await rejectionOf(packToBytes(longName))).toMatchObject({ code: 'invalid_entry' });

    const longPath: ArchiveTree = createTree();
    let directory = longPath.root;
    const names = namesOfPath(4097);
    for (const name of names.slice(0, -1)) {
      const child = createDirectory(name);
      directory.entries.set(name, child);
      directory = child;
    }
    directory.entries.set(names.at(-1)!, { kind: 'file', name: names.at(-1)!, size: 0, mode: 0, source: bytesSource(new Uint8Array(0)) });
    expect(await rejectionOf(packToBytes(longPath))).toMatchObject({ code: 'invalid_entry', path: names.join('/') });
  });
});
