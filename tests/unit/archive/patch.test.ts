import { expect, test } from 'bun:test';
import {
  addFile,
  bytesSource,
  computePatchSize,
  concatBytes,
  createTree,
  equalBytes,
  indexTree,
  listUniqueChunks,
  readAllFiles,
  readArchive,
  toHex,
  type ArchiveIndex,
} from '../../../src/shared/archive/index.ts';
import { buildRandomTree, fillPseudoRandom, packToBytes, rejectionOf, streamOf } from './support.ts';

const large = new Uint8Array(4 * 1024 * 1024);
fillPseudoRandom(large, 42);
const insert = new Uint8Array(4096);
fillPseudoRandom(insert, 43);
const edited = concatBytes([insert, large]);
const config = new TextEncoder().encode('volume=3\n');

function baseTree() {
  const tree = createTree();
  addFile(tree, 'game.pak', bytesSource(large));
  addFile(tree, 'config.ini', bytesSource(config));
  return tree;
}

function newTree() {
  const tree = createTree();
  addFile(tree, 'game.pak', bytesSource(edited));
  addFile(tree, 'config.ini', bytesSource(config));
  addFile(tree, 'bin/new-tool', bytesSource(new TextEncoder().encode('#!/bin/sh\n')), { mode: 1 });
  return tree;
}

/** The base's chunk store, as the server would keep it: raw bytes by hash. */
async function chunkStore(bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  const store = new Map<string, Uint8Array>();
  const read = await readArchive(streamOf(bytes));
  for await (const chunk of read.chunks()) store.set(toHex(chunk.hash), chunk.bytes.slice());
  return store;
}

for (const compression of [0, 1] as const) {
  test(`patch + base reproduces the new tree (compression ${compression})`, async () => {
    const base = await packToBytes(baseTree(), { compression });
    const baseIndex: ArchiveIndex = base.result.index;
    const full = await packToBytes(newTree(), { compression });
    const patch = await packToBytes(newTree(), { compression, base: baseIndex });

    // Only the changed chunks travel: the insert touches ≤ 3 chunks, plus the new small file.
    expect(patch.result.storedChunkCount).toBeLessThanOrEqual(4);
    expect(patch.result.patchSize).toBe(computePatchSize(full.result.index, baseIndex));
    expect(patch.bytes.length).toBeLessThan(full.bytes.length / 4);
    // The patch's index describes the whole tree: the same bytes as the full archive's index.
    expect(toHex(patch.result.indexHash)).toBe(toHex(full.result.indexHash));

    const store = await chunkStore(base.bytes);
    let fromBase = 0;
    const read = await readArchive(streamOf(patch.bytes), {
      getBaseChunk: (hash) => {
        fromBase++;
        return store.get(toHex(hash));
      },
    });
    expect(toHex(read.baseIndexHash!)).toBe(toHex(base.result.indexHash));
    const files = await readAllFiles(read);
    expect(fromBase).toBeGreaterThan(50);
    expect(equalBytes(files.get('game.pak')!, edited)).toBe(true);
    expect(new TextDecoder().decode(files.get('bin/new-tool'))).toBe('#!/bin/sh\n');
  });
}

test('patchSize is the stored size of the chunks the base lacks, known before packing', async () => {
  const baseIndex = await indexTree(baseTree());
  const newIndex = await indexTree(newTree(), { base: baseIndex });
  const baseHashes = new Set(listUniqueChunks(baseIndex).map((c) => toHex(c.hash)));
  const expected = listUniqueChunks(newIndex)
    .filter((c) => !baseHashes.has(toHex(c.hash)))
    .reduce((sum, c) => sum + c.compressedSize, 0);
  expect(computePatchSize(newIndex, baseIndex)).toBe(expected);
  expect(expected).toBeGreaterThan(4096);
  expect(expected).toBeLessThan(3 * 256 * 1024 + 100);
  expect(computePatchSize(baseIndex, baseIndex)).toBe(0);
  const patch = await packToBytes(newIndex, { base: baseIndex });
  expect(patch.result.patchSize).toBe(expected);
});

test('a patch read without the base yields only its own chunks; a base missing a chunk is missing_chunk', async () => {
  const base = await packToBytes(baseTree());
  const patch = await packToBytes(newTree(), { base: base.result.index });
  const read = await readArchive(streamOf(patch.bytes));
  let count = 0;
  for await (const chunk of read.chunks()) {
    expect(chunk.fromBase).toBe(false);
    count++;
  }
  expect(count).toBe(patch.result.storedChunkCount);
  const reread = await readArchive(streamOf(patch.bytes), { getBaseChunk: () => undefined });
  expect((await rejectionOf(readAllFiles(reread))).code).toBe('missing_chunk');
  const lying = await readArchive(streamOf(patch.bytes), { getBaseChunk: (_, chunk) => new Uint8Array(chunk.size) });
  expect((await rejectionOf(readAllFiles(lying))).code).toBe('wrong_chunk_hash');
});

test('a stored index plus a chunk store regenerates the same archive without any source', async () => {
  for (const compression of [0, 1] as const) {
    const original = await packToBytes(newTree(), { compression });
    const stored = new Map<string, Uint8Array>();
    const read = await readArchive(streamOf(original.bytes));
    for await (const chunk of read.chunks()) stored.set(toHex(chunk.hash), chunk.storedBytes.slice());
    const regenerated = await packToBytes(read.index, { loadChunk: (chunk) => stored.get(toHex(chunk.hash)) });
    expect(equalBytes(regenerated.bytes, original.bytes)).toBe(true);
    const missing = await rejectionOf(packToBytes(read.index, { loadChunk: () => undefined }));
    expect(missing.code).toBe('missing_chunk');
  }
});

test('property: for random base and new trees, patch + base chunks reproduce the new tree', async () => {
  for (let seed = 1; seed <= 12; seed++) {
    const base = buildRandomTree(seed);
    const next = buildRandomTree(seed + 500);
    // Overlap: the new tree also carries the base's files, so some chunks come from the base.
    for (const [path, bytes] of base.expected.files) {
      addFile(next.tree, `old/${path}`, bytesSource(bytes));
      next.expected.files.set(`old/${path}`, bytes);
    }
    const compression = (seed % 2) as 0 | 1;
    const basePacked = await packToBytes(base.tree, { compression });
    const patch = await packToBytes(next.tree, { compression, base: basePacked.result.index });
    const store = await chunkStore(basePacked.bytes);
    const read = await readArchive(streamOf(patch.bytes), { getBaseChunk: async (hash) => store.get(toHex(hash)) });
    const files = await readAllFiles(read);
    expect([...files.keys()].sort()).toEqual([...next.expected.files.keys()].sort());
    for (const [path, bytes] of next.expected.files) expect(equalBytes(files.get(path)!, bytes)).toBe(true);
    expect(patch.result.patchSize).toBe(computePatchSize(patch.result.index, basePacked.result.index));
  }
});
