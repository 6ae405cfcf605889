import { noteTransientBytes } from '../../../../memory/transient-bytes.ts';
import type { ChunkRef } from '../../chunks/chunk-reader.ts';

/**
 * A download whose every byte offset is known before any byte is produced: a list of segments,
 * each literal bytes (headers) or one chunk of the package (loaded from the chunk store on demand).
 * Any byte range is served by producing only the segments it touches, a few chunks ahead, so Range
 * requests (resumed downloads, BitTorrent web seeds asking for one piece) cost what they return.
 */
export type { ChunkRef };

export type Segment = { bytes: Uint8Array; chunk?: undefined } | { chunk: ChunkRef; bytes?: undefined };

export type VirtualFile = {
  size: number;
  segments: Segment[];
  /** Start offset of each segment (Float64: offsets pass 4 GiB). */
  offsets: Float64Array;
};

/**
 * The bytes a chunk segment stands for (stored bytes for the archive, raw bytes for the ZIP). `release`,
 * when there is one, is called once the range is read or abandoned (zip/chunks.ts: open pack reads).
 */
export type LoadChunk = ((chunk: ChunkRef) => Promise<Uint8Array>) & { release?: () => void };

/** Chunks loaded ahead of the one being sent: hides the store's latency without holding much. */
const readAhead = 4;

function segmentSize(segment: Segment, chunkBytes: (chunk: ChunkRef) => number): number {
  return segment.bytes ? segment.bytes.byteLength : chunkBytes(segment.chunk);
}

export function buildVirtualFile(segments: Segment[], chunkBytes: (chunk: ChunkRef) => number): VirtualFile {
  const offsets = new Float64Array(segments.length);
  let size = 0;
  segments.forEach((segment, index) => {
    offsets[index] = size;
    size += segmentSize(segment, chunkBytes);
  });
  return { size, segments, offsets };
}

/** Index of the segment holding byte `offset` (the last segment starting at or before it). */
function segmentAt(file: VirtualFile, offset: number): number {
  let low = 0;
  let high = file.segments.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (file.offsets[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Bytes start..end (end exclusive) of the file as a pull-driven stream. */
export function readVirtualRange(file: VirtualFile, start: number, end: number, load: LoadChunk): ReadableStream<Uint8Array> {
  let next = start < end ? segmentAt(file, start) : file.segments.length;
  const pending: { index: number; bytes: Promise<Uint8Array> }[] = [];
  const startLoads = () => {
    let index = pending.length > 0 ? pending[pending.length - 1]!.index + 1 : next;
    while (pending.length < readAhead && index < file.segments.length && file.offsets[index]! < end) {
      const segment = file.segments[index]!;
      const bytes = segment.bytes ? Promise.resolve(segment.bytes) : load(segment.chunk);
      bytes.catch(() => undefined); // reported when its turn comes
      pending.push({ index, bytes });
      index++;
    }
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          if (next >= file.segments.length || file.offsets[next]! >= end) {
            load.release?.();
            controller.close();
            return;
          }
          startLoads();
          const current = pending.shift()!;
          const bytes = await current.bytes.catch((error: unknown) => {
            load.release?.();
            throw error;
          });
          const segmentStart = file.offsets[next]!;
          next++;
          const from = Math.max(0, start - segmentStart);
          const to = Math.min(bytes.byteLength, end - segmentStart);
          if (to <= from) continue;
          if (file.segments[next - 1]!.chunk) noteTransientBytes(bytes.byteLength);
          controller.enqueue(from === 0 && to === bytes.byteLength ? bytes : bytes.slice(from, to));
          return;
        }
      },
      cancel() {
        pending.length = 0;
        load.release?.();
      },
    },
    { highWaterMark: 0 },
  );
}
