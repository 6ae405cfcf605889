import { expect, test } from 'bun:test';
import { fillPseudoRandom } from './support.ts';
import { addFile, createTree, generatedSource, listUniqueChunks, packArchive, readArchive } from '../../../src/shared/archive/index.ts';

const SIZE = 300 * 1024 * 1024;

const PIECE = 4 * 1024 * 1024;
const block = new Uint8Array(PIECE);
fillPseudoRandom(block, 2024);

/** A random block copied, with the absolute offset stamped every 4 KiB so no chunk repeats: cheap. */
function fill(buffer: Uint8Array, offset: number): void {
  buffer.set(block.subarray(0, buffer.length));
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  for (let at = 0; at + 8 <= buffer.length; at += 4096) view.setFloat64(at, offset + at);
}

test('a 300 MiB generated file streams through pack and read with bounded memory', async () => {
  Bun.gc(true);
  const before = process.memoryUsage().rss;
  let peak = before;
  const tree = createTree();
  addFile(tree, 'huge.bin', generatedSource(SIZE, fill, PIECE), { mode: 1 });
  const packed = packArchive(tree, { chunking: 1, compression: 0 });
  const read = await readArchive(packed.stream);
  let total = 0;
  let chunks = 0;
  for await (const chunk of read.chunks()) {
    total += chunk.size;
    if (++chunks % 500 === 0) {
      // Collect first: what is measured is what the pipeline keeps alive, not garbage awaiting GC.
      Bun.gc(true);
      peak = Math.max(peak, process.memoryUsage().rss);
    }
  }
  const result = await packed.done;
  expect(read.index.root.entries.get('huge.bin')?.size).toBe(SIZE);
  expect(total).toBe(listUniqueChunks(read.index).reduce((sum, chunk) => sum + chunk.size, 0));
  expect(total).toBe(SIZE);
  expect(result.chunkCount).toBe(chunks);
  expect(chunks).toBeGreaterThan(SIZE / (256 * 1024));
  // Holding the file would cost 300 MiB; streaming costs a few chunks and pieces plus garbage.
  console.log(`archive big test: rss grew ${((peak - before) / 1048576).toFixed(0)} MiB`);
  expect(peak - before).toBeLessThan(150 * 1024 * 1024);
}, 30_000);
