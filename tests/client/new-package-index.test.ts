import { describe, expect, test } from 'bun:test';
import {
  addFile,
  computePatchSize,
  concatBytes,
  createTree,
  encodeIndex,
  indexTree,
  packArchive,
  type ArchiveTree,
} from '../../src/shared/archive/index.ts';
import { estimateUpload, indexPackageTree, uploadPackSettings } from '../../src/client/dialogs/new-package/package-index.ts';

/** Bytes that do not repeat, so content-defined chunking cuts real chunks. */
function noise(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let x = seed * 2654435761 || 1;
  for (let i = 0; i < size; i++) {
    // xorshift32: a plain LCG's bytes are too regular for the gear hash to ever cut.
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}

function treeOf(files: Record<string, Uint8Array>): ArchiveTree {
  const tree = createTree();
  for (const [path, bytes] of Object.entries(files)) addFile(tree, path, new Blob([bytes as Uint8Array<ArrayBuffer>]));
  return tree;
}

async function packedSize(tree: ArchiveTree, options: Parameters<typeof packArchive>[1]): Promise<number> {
  const packed = packArchive(tree, options);
  let size = 0;
  for await (const piece of packed.stream as unknown as AsyncIterable<Uint8Array>) size += piece.length;
  return size;
}

const index = (tree: ArchiveTree) => indexPackageTree(tree, { chunking: uploadPackSettings().chunking, signal: new AbortController().signal });

describe('new package dialog: index and sizes', () => {
  test('the index is the one indexTree makes, and the estimate is the archive packArchive writes', async () => {
    const tree = treeOf({ 'a/one.bin': noise(700_000, 1), 'b.bin': noise(50_000, 2), 'copy.bin': noise(50_000, 2), 'empty.txt': new Uint8Array() });
    const mine = await index(tree);
    const reference = await indexTree(tree, uploadPackSettings());
    expect(concatBytes(encodeIndex(mine))).toEqual(concatBytes(encodeIndex(reference)));
    const estimate = estimateUpload(mine);
    expect(estimate.uploadSize).toBe(estimate.fullSize);
    expect(estimate.fullSize).toBe(await packedSize(tree, uploadPackSettings()));
  });

  test('with a base: the upload is exactly the patch archive, its chunk data what computePatchSize says', async () => {
    const shared = noise(900_000, 3);
    const baseTree = treeOf({ 'game.bin': shared, 'old.txt': noise(20_000, 4) });
    const baseIndex = await indexTree(baseTree, uploadPackSettings());
    // Fixed-size chunks (spec §9 upload): bytes changed in place touch only the chunks they fall in.
    const changed = concatBytes([shared.subarray(0, 400_000), noise(30_000, 5), shared.subarray(430_000)]);
    const tree = treeOf({ 'game.bin': changed, 'new.txt': noise(10_000, 6) });
    const mine = await indexPackageTree(tree, { chunking: uploadPackSettings().chunking, signal: new AbortController().signal });
    const estimate = estimateUpload(mine, baseIndex);
    expect(estimate.chunkDataSize).toBe(computePatchSize(mine, baseIndex));
    expect(estimate.uploadSize).toBe(await packedSize(tree, { ...uploadPackSettings(), base: baseIndex }));
    expect(estimate.uploadSize).toBeLessThan(estimate.fullSize / 2);
  });

  test('a file is read once: edits that keep the sources index from memory; aborting stops a run', async () => {
    const tree = treeOf({ 'x.bin': noise(100_000, 7) });
    const first: number[] = [];
    await indexPackageTree(tree, { chunking: uploadPackSettings().chunking, signal: new AbortController().signal, onProgress: (p) => first.push(p.total) });
    expect(first.at(-1)).toBe(100_000);
    const again: number[] = [];
    await indexPackageTree(tree, { chunking: uploadPackSettings().chunking, signal: new AbortController().signal, onProgress: (p) => again.push(p.total) });
    expect(again).toEqual([0]);
    const fresh = treeOf({ 'y.bin': noise(3_000_000, 8) });
    const controller = new AbortController();
    const run = indexPackageTree(fresh, { chunking: uploadPackSettings().chunking, signal: controller.signal, onProgress: () => controller.abort(new Error('changed')) });
    await expect(run).rejects.toThrow();
  });
});
