import { expect, test } from 'bun:test';
import { addFile, archiveSize, bytesSource, concatBytes, createTree, indexTree, packArchive, type ArchiveIndex, type PackOptions } from '../../../src/shared/archive/index.ts';
import { fillPseudoRandom } from './support.ts';

function random(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  fillPseudoRandom(bytes, seed);
  return bytes;
}

async function packedLength(index: ArchiveIndex, options: PackOptions): Promise<{ length: number; patchSize: number }> {
  const packed = packArchive(index, options);
  const bytes = concatBytes(await Array.fromAsync(packed.stream as unknown as AsyncIterable<Uint8Array>));
  return { length: bytes.length, patchSize: (await packed.done).patchSize };
}

for (const chunking of [0, 1] as const) {
  test(`archiveSize equals the packed length, full and patch (chunking ${chunking})`, async () => {
    const shared = random(700_000, 1);
    const tree = createTree();
    addFile(tree, 'game/data.bin', bytesSource(shared));
    addFile(tree, 'game/run.sh', bytesSource(new TextEncoder().encode('#!/bin/sh\n')), { mode: 1 });
    addFile(tree, 'empty', bytesSource(new Uint8Array()));
    const base = await indexTree(tree, { chunking });
    const full = archiveSize(base);
    const packedFull = await packedLength(base, { chunking });
    expect(full.totalSize).toBe(packedFull.length);
    expect(full.patchSize).toBe(packedFull.patchSize);

    const next = createTree();
    addFile(next, 'game/data.bin', bytesSource(shared));
    addFile(next, 'game/extra.bin', bytesSource(random(300_000, 2)));
    const update = await indexTree(next, { chunking, base });
    const patch = archiveSize(update, { base });
    const packedPatch = await packedLength(update, { chunking, base });
    expect(patch.totalSize).toBe(packedPatch.length);
    expect(patch.patchSize).toBe(packedPatch.patchSize);
    // The shared file's chunks travel only in the full archive.
    expect(patch.patchSize).toBeLessThan(full.patchSize);
    expect(patch.patchSize).toBeGreaterThanOrEqual(300_000);
  });
}
