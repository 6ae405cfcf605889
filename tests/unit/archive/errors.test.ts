import { describe, expect, test } from 'bun:test';
import {
  ArchiveError,
  addFile,
  archiveErrorCodes,
  bytesSource,
  concatBytes,
  createBunAdapters,
  createTree,
  createWebAdapters,
  packArchive,
  readAllFiles,
  readArchive,
} from '../../../src/shared/archive/index.ts';
import { craftArchive, encodeFields } from '../../support/archive-craft.ts';
import { fillPseudoRandom, packToBytes, rejectionOf, streamOf } from './support.ts';

const adapters = createBunAdapters();
const sha = (bytes: Uint8Array) => adapters.sha256(bytes) as Uint8Array;
const encode = encodeFields;
const craft = craftArchive;

const hello = new TextEncoder().encode('hello');
const helloFile = (name = 'f', kind = 1) => [kind, name, 0, 5, 1, sha(hello), 5, 5] as const;

async function codeOf(bytes: Uint8Array, options: Parameters<typeof readArchive>[1] = {}): Promise<string | undefined> {
  const error = await rejectionOf(
    (async () => {
      const read = await readArchive(streamOf(bytes, 13), options);
      await readAllFiles(read);
    })(),
  );
  expect(error).toBeInstanceOf(ArchiveError);
  return error.code;
}

test('a crafted valid archive reads (the crafting helper itself is right)', async () => {
  const read = await readArchive(streamOf(craft(encode(1, 0, 0, 1, ...helloFile()), { data: hello })));
  const files = await readAllFiles(read);
  expect(new TextDecoder().decode(files.get('f'))).toBe('hello');
});

describe('each catalogued reading error from a crafted input', () => {
  test('wrong_magic', async () => {
    expect(await codeOf(new TextEncoder().encode('PK\x03\x04 not ours'))).toBe('wrong_magic');
    expect(await codeOf(new Uint8Array([0x43, 0x52]))).toBe('wrong_magic');
  });

  test('wrong_index_hash', async () => {
    const index = encode(1, 0, 0, 0);
    expect(await codeOf(craft(index, { hash: new Uint8Array(32) }))).toBe('wrong_index_hash');
  });

  test('wrong_index_size: above the limit, zero, entries ending early or running past', async () => {
    const index = encode(1, 0, 0, 0);
    expect(await codeOf(craft(index), { maxIndexSize: 3 })).toBe('wrong_index_size');
    expect(await codeOf(craft(new Uint8Array(0)))).toBe('wrong_index_size');
    expect(await codeOf(craft(concatBytes([index, new Uint8Array([0])])))).toBe('wrong_index_size');
    expect(await codeOf(craft(encode(1, 0, 0, 1, 2, 'link', 0)))).toBe('wrong_index_size');
  });

  test('too_many_entries: a directory declaring 1048576 entries', async () => {
    expect(await codeOf(craft(encode(1, 0, 0, 1_048_576, new Uint8Array(64))))).toBe('too_many_entries');
    expect(await codeOf(craft(encode(1, 0, 0, 1, 0, 'd', 0, 5_000_000)))).toBe('too_many_entries');
  });

  const invalid: [string, Uint8Array][] = [
    ['unknown entry kind', encode(1, 0, 0, 1, 3, 'x', 0, 0)],
    ['unknown chunking', encode(2, 0, 0, 0)],
    ['unknown compression', encode(1, 7, 0, 0)],
    ['mode with high bits', encode(1, 0, 0, 1, 1, 'f', 4, 0, 0)],
    ['name ..', encode(1, 0, 0, 1, 0, '..', 0, 0)],
    ['name with a slash', encode(1, 0, 0, 1, 0, 'a/b', 0, 0)],
    ['empty name', encode(1, 0, 0, 1, 0, '', 0, 0)],
    ['name with NUL', encode(1, 0, 0, 1, 0, 'a\0', 0, 0)],
    ['invalid UTF-8 name', encode(1, 0, 0, 1, 0, new Uint8Array([2, 0xc3, 0x28]), 0, 0)],
    ['names out of order', encode(1, 0, 0, 2, 0, 'b', 0, 0, 0, 'a', 0, 0)],
    ['duplicate names', encode(1, 0, 0, 2, 0, 'a', 0, 0, 0, 'a', 0, 0)],
    ['chunk sizes not adding up', encode(1, 0, 0, 1, 1, 'f', 0, 6, 1, sha(hello), 5, 5)],
    ['compressed size above size', encode(1, 1, 0, 1, 1, 'f', 0, 5, 1, sha(hello), 5, 6)],
    ['compressed size with compression 0', encode(1, 0, 0, 1, 1, 'f', 0, 5, 1, sha(hello), 5, 4)],
    ['chunk above the maximum', encode(1, 0, 0, 1, 1, 'f', 0, 300_000, 1, new Uint8Array(32), 300_000, 300_000)],
    ['short content-defined chunk before the last', encode(1, 0, 0, 1, 1, 'f', 0, 10, 2, new Uint8Array(32), 5, 5, new Uint8Array(32), 5, 5)],
    ['empty symlink target', encode(1, 0, 0, 1, 2, 'l', 0, '')],
    ['non-minimal varint', encode(1, 0, 0, new Uint8Array([0x81, 0x00]), 0, 'a', 0, 0)],
    ['same hash with two sizes', encode(1, 0, 0, 2, ...helloFile('a'), 1, 'b', 0, 4, 1, sha(hello), 4, 4)],
    ['nesting deeper than 1024', encode(1, 0, 0, ...Array.from({ length: 1100 }, () => [1, 0, 'd', 0]).flat(), 0)],
  ];
  test.each(invalid)('invalid_entry: %s', async (_, index) => {
    expect(await codeOf(craft(index, { data: hello }))).toBe('invalid_entry');
  });

  test('invalid_entry: unknown flags and bytes after the last chunk', async () => {
    expect(await codeOf(craft(encode(1, 0, 0, 0), { flags: 4 }))).toBe('invalid_entry');
    expect(await codeOf(craft(encode(1, 0, 0, 0), { flags: 2 ** 32 }))).toBe('invalid_entry');
    const extra = concatBytes([hello, new Uint8Array([1])]);
    expect(await codeOf(craft(encode(1, 0, 0, 1, ...helloFile()), { data: extra }))).toBe('invalid_entry');
  });

  test('archive_ended: cut inside the index, the hash or the chunk data', async () => {
    const whole = craft(encode(1, 0, 0, 1, ...helloFile()), { data: hello });
    for (const cut of [8, whole.length - 20, whole.length - 1]) {
      expect(await codeOf(whole.subarray(0, cut))).toBe('archive_ended');
    }
  });

  test('wrong_chunk_hash: altered chunk bytes, undecodable zstd, a decompression bomb', async () => {
    const jello = new TextEncoder().encode('jello');
    expect(await codeOf(craft(encode(1, 0, 0, 1, ...helloFile()), { data: jello }))).toBe('wrong_chunk_hash');
    const garbage = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 1]);
    expect(await codeOf(craft(encode(1, 1, 0, 1, 1, 'f', 0, 5, 1, sha(hello), 5, garbage.length), { data: garbage }))).toBe('wrong_chunk_hash');
    const bomb = adapters.zstdCompress!(new Uint8Array(64 * 1024 * 1024), 3);
    expect(bomb.length).toBeLessThan(5000);
    const index = encode(1, 1, 0, 1, 1, 'f', 0, 5000, 1, new Uint8Array(32), 5000, bomb.length);
    for (const reader of [adapters, createWebAdapters()]) {
      expect(await codeOf(craft(index, { data: bomb }), { adapters: reader })).toBe('wrong_chunk_hash');
    }
  });
});

describe('writing errors', () => {
  test('invalid_option: unknown algorithms, compression without a compressor', async () => {
    const tree = createTree();
    addFile(tree, 'f', bytesSource(hello));
    for (const options of [{ chunking: 5 }, { compression: 3 }, { compression: 1, adapters: createWebAdapters() }] as const) {
      const packed = packArchive(tree, options as never);
      await new Response(packed.stream).arrayBuffer().catch(() => undefined);
      expect(await packed.done.catch((error: ArchiveError) => error.code)).toBe('invalid_option');
    }
  });

  test('every code of the catalogue is a distinct string', () => {
    expect(new Set(archiveErrorCodes).size).toBe(archiveErrorCodes.length);
    expect(archiveErrorCodes).toContain('archive_fetch_failed');
  });
});

test('hostile random bytes after a valid header never crash with a non-ArchiveError', async () => {
  const data = new Uint8Array(4096);
  for (let seed = 1; seed <= 200; seed++) {
    fillPseudoRandom(data, seed);
    const length = 1 + (seed * 37) % 200;
    const index = data.subarray(0, length);
    const bytes = craft(index, { data: data.subarray(length, length + 300) });
    const error = await rejectionOf(readArchive(streamOf(bytes)).then((read) => readAllFiles(read)));
    expect(error).toBeInstanceOf(ArchiveError);
  }
});

test('a valid archive with any byte flipped fails with an ArchiveError', async () => {
  const tree = createTree();
  const content = new Uint8Array(70_000);
  fillPseudoRandom(content, 3);
  addFile(tree, 'a/b.bin', bytesSource(content));
  addFile(tree, 'c.txt', bytesSource(hello), { mode: 1 });
  const { bytes } = await packToBytes(tree, { compression: 1 });
  for (let i = 0; i < bytes.length; i += Math.max(1, Math.floor(bytes.length / 300))) {
    const broken = bytes.slice();
    broken[i]! ^= 0x5a;
    const error = await rejectionOf(readArchive(streamOf(broken)).then((read) => readAllFiles(read)));
    expect(error).toBeInstanceOf(ArchiveError);
  }
});
