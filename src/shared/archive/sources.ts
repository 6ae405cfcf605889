import type { FileSource } from './types.ts';

/** A source over bytes in memory (tests, generated files, the browser's pasted content). */
export function bytesSource(bytes: Uint8Array, pieceSize = 64 * 1024): FileSource {
  return {
    size: bytes.length,
    stream() {
      let offset = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= bytes.length) {
            controller.close();
            return;
          }
          const end = Math.min(bytes.length, offset + pieceSize);
          // Views, not copies: readers of a FileSource must not write into what they receive.
          controller.enqueue(bytes.subarray(offset, end));
          offset = end;
        },
      });
    },
  };
}

/**
 * A source of `size` bytes made on the fly by `fill(buffer, offset)`, never held whole in memory:
 * huge test files and benchmarks.
 */
export function generatedSource(size: number, fill: (buffer: Uint8Array, offset: number) => void, pieceSize = 1024 * 1024): FileSource {
  return {
    size,
    stream() {
      let offset = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= size) {
            controller.close();
            return;
          }
          const buffer = new Uint8Array(Math.min(pieceSize, size - offset));
          fill(buffer, offset);
          controller.enqueue(buffer);
          offset += buffer.length;
        },
      });
    },
  };
}
