/**
 * The server's ZIP writer refuses what a ZIP must not or cannot hold instead of writing a broken or
 * dangerous file (issue 13, items 5 and 8). Indexes are built by hand here: the reader would refuse
 * them, which is the point (an index stored before the rules existed).
 */
import { describe, expect, test } from 'bun:test';
import { ArchiveError, createDirectory, type ArchiveDirectory, type ArchiveIndex } from '../../src/shared/archive/index.ts';
import { centralHeaderSize, encodeCentralHeader, encodeLocalHeader, MODE_FILE, MODE_SYMLINK } from '../../src/server/domains/packages/downloads/zip/headers.ts';
import { zipLayout } from '../../src/server/domains/packages/downloads/zip/layout.ts';

function indexOf(build: (root: ArchiveDirectory) => void): ArchiveIndex {
  const root = createDirectory('');
  build(root);
  return { chunking: 1, compression: 0, root };
}

const emptyFile = (name: string) => ({ kind: 'file' as const, name, size: 0, mode: 0, chunks: [] });
const link = (name: string, target: string) => ({ kind: 'symlink' as const, name, size: 0 as const, mode: 0, target });

function refusal(action: () => unknown): ArchiveError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ArchiveError);
    return error as ArchiveError;
  }
  throw new Error('expected the ZIP writer to refuse');
}

describe('names (item 8)', () => {
  test('a 100,000-byte name is refused, not written with a wrapped 16-bit length', () => {
    const name = 'x'.repeat(100_000);
    const error = refusal(() => zipLayout(indexOf((root) => root.entries.set(name, emptyFile(name))), new Uint32Array(1)));
    expect(error.code).toBe('invalid_entry');
    expect(error.message).toContain('100000 bytes');
  });

  test('names above 255 bytes and paths above 4096 are refused; 255 and 4096 are written', () => {
    const long = 'n'.repeat(256);
    expect(refusal(() => zipLayout(indexOf((root) => root.entries.set(long, emptyFile(long))), new Uint32Array(1))).code).toBe('invalid_entry');
    const deep = (lastLength: number) =>
      indexOf((root) => {
        let directory = root;
        for (let i = 0; i < 16; i++) {
          const child = createDirectory(String.fromCharCode(97 + i).repeat(240));
          directory.entries.set(child.name, child);
          directory = child;
        }
        directory.entries.set('z'.repeat(lastLength), emptyFile('z'.repeat(lastLength)));
      });
    expect(zipLayout(deep(240), new Uint32Array(1)).size).toBeGreaterThan(4096);
    expect(refusal(() => zipLayout(deep(241), new Uint32Array(1))).code).toBe('invalid_entry');
    expect(zipLayout(indexOf((root) => root.entries.set('n'.repeat(255), emptyFile('n'.repeat(255)))), new Uint32Array(1)).size).toBeGreaterThan(255);
  });

  test('the header encoders refuse a name their 16-bit length field cannot hold (65,536 bytes), not 65,535', () => {
    const entry = (length: number) => ({ name: new Uint8Array(length).fill(0x61), size: 0, crc: 0, mode: MODE_FILE, offset: 0 });
    expect(encodeLocalHeader(entry(65_535)).byteLength).toBe(30 + 65_535);
    expect(encodeCentralHeader(entry(65_535)).byteLength).toBe(centralHeaderSize(entry(65_535)));
    for (const encode of [encodeLocalHeader, encodeCentralHeader]) {
      const error = refusal(() => encode(entry(65_536)));
      expect(error.code).toBe('invalid_entry');
      expect(error.message).toContain('name length');
    }
    expect(refusal(() => encodeLocalHeader({ ...entry(1), crc: 2 ** 32 })).code).toBe('invalid_entry');
    expect(refusal(() => encodeLocalHeader({ ...entry(1), size: -1 })).code).toBe('invalid_entry');
  });
});

describe('symlinks (item 5)', () => {
  test.each([
    ['passwd', '../../../../etc/passwd'],
    ['passwd', '/etc/passwd'],
    ['windows', 'C:\\Windows'],
  ])('%s → %s is refused with path_outside_target', (name, target) => {
    const error = refusal(() => zipLayout(indexOf((root) => root.entries.set(name, link(name, target))), new Uint32Array(0)));
    expect(error.code).toBe('path_outside_target');
    expect(error.path).toBe(name);
  });

  test('d/up → ../.. and a chain through another link are refused; links inside are written with mode 0120777', () => {
    const d = createDirectory('d');
    d.entries.set('up', link('up', '../..'));
    expect(refusal(() => zipLayout(indexOf((root) => root.entries.set('d', d)), new Uint32Array(0))).path).toBe('d/up');
    const chain = indexOf((root) => {
      const sub = createDirectory('sub');
      sub.entries.set('up', link('up', '..'));
      root.entries.set('escape', link('escape', 'sub/up/..'));
      root.entries.set('sub', sub);
    });
    expect(refusal(() => zipLayout(chain, new Uint32Array(0))).path).toBe('escape');

    const inside = indexOf((root) => {
      const lib = createDirectory('lib');
      lib.entries.set('libfoo.so', link('libfoo.so', 'libfoo.so.1'));
      lib.entries.set('libfoo.so.1', emptyFile('libfoo.so.1'));
      root.entries.set('lib', lib);
    });
    const layout = zipLayout(inside, new Uint32Array(1));
    const bytes = new Uint8Array(layout.size);
    layout.segments.forEach((segment, i) => bytes.set(segment.bytes!, layout.offsets[i]!));
    const view = new DataView(bytes.buffer);
    // The central directory's second entry (lib/, lib/libfoo.so, lib/libfoo.so.1 in index order) is the link.
    let at = bytes.findIndex((_, i) => view.getUint32(i, true) === 0x02014b50);
    at += centralHeaderSize({ name: new TextEncoder().encode('lib/'), size: 0, crc: 0, mode: 0, offset: 0 });
    expect(new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + view.getUint16(at + 28, true)))).toBe('lib/libfoo.so');
    expect(view.getUint32(at + 38, true) >>> 16).toBe(MODE_SYMLINK);
  });
});
