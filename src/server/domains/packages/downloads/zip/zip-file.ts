import { crc32 } from 'node:zlib';
import type { FileHandle } from 'node:fs/promises';
import type { ArchiveIndex } from '../../../../../shared/archive/index.ts';
import { filesOf } from './crc.ts';
import { zipLayout } from './layout.ts';
import type { VirtualFile } from './segments.ts';

/**
 * A package's ZIP written to a file in one pass over its bytes, CRC-32s unknown at the start: the
 * layout is made with zero CRCs (header sizes do not depend on them), every file's CRC-32 is computed
 * as its bytes stream into the file, then the header bytes of the real layout are written over the
 * provisional ones in place. Without this, a package's first ZIP costs two passes (CRC-32s, then the
 * bytes) — for a 2 GiB package, tens of seconds and twice the memory churn.
 */
export type OnePassZip = {
  /** The provisional layout: same size and offsets as the final one. */
  layout: VirtualFile;
  /** Passes the ZIP's bytes through while computing each file's CRC-32. */
  transform: TransformStream<Uint8Array, Uint8Array>;
  /** The same, for a writer that has the bytes in hand (copy-into-file.ts): every byte, in order. */
  feed(piece: Uint8Array): void;
  /** After every byte went through: writes the real headers and returns the CRC-32s. */
  finish(handle: FileHandle): Promise<Uint32Array>;
};

export function onePassZip(index: ArchiveIndex): OnePassZip {
  const files = filesOf(index);
  const crcs = new Uint32Array(files.length);
  const layout = zipLayout(index, crcs);
  // Where each non-empty file's bytes lie in the ZIP: its chunk segments, in index order (layout.ts).
  const ranges: { file: number; start: number; end: number }[] = [];
  let segment = 0;
  files.forEach((file, fileIndex) => {
    const count = file.chunks?.length ?? 0;
    if (count === 0 || file.size === 0) return;
    while (!layout.segments[segment]!.chunk) segment++;
    const start = layout.offsets[segment]!;
    ranges.push({ file: fileIndex, start, end: start + file.size });
    segment += count;
  });
  let next = 0;
  let position = 0;
  const feed = (piece: Uint8Array) => {
    const pieceEnd = position + piece.byteLength;
    while (next < ranges.length && ranges[next]!.start < pieceEnd) {
      const range = ranges[next]!;
      const from = Math.max(range.start, position);
      const to = Math.min(range.end, pieceEnd);
      if (to > from) crcs[range.file] = crc32(piece.subarray(from - position, to - position), crcs[range.file]!) >>> 0;
      if (range.end > pieceEnd) break;
      next++;
    }
    position = pieceEnd;
  };
  const transform = new TransformStream<Uint8Array, Uint8Array>({
    transform(piece, controller) {
      feed(piece);
      controller.enqueue(piece);
    },
  });
  return {
    layout,
    transform,
    feed,
    async finish(handle) {
      if (position !== layout.size || next !== ranges.length) throw new Error(`ZIP pass ended at ${position} of ${layout.size} bytes`);
      const final = zipLayout(index, crcs);
      if (final.size !== layout.size) throw new Error('the ZIP layout changed size with its CRC-32s');
      for (let i = 0; i < final.segments.length; i++) {
        const bytes = final.segments[i]!.bytes;
        if (!bytes) continue;
        for (let written = 0; written < bytes.byteLength; ) {
          const { bytesWritten } = await handle.write(bytes, written, bytes.byteLength - written, final.offsets[i]! + written);
          written += bytesWritten;
        }
      }
      return crcs;
    },
  };
}
