import { concatBytes } from './bytes.ts';
import {
  BOUNDARY_MASK_MODULUS,
  CHUNKING_CONTENT_DEFINED,
  FIXED_CHUNK_SIZE,
  MAX_CHUNK_SIZE,
  MIN_CHUNK_SIZE,
} from './constants.ts';
import type { ChunkingAlgorithm } from './types.ts';

/**
 * Gear table: 256 32-bit values from splitmix32 seeded with 0x43525431 ("CRT1"). Part of the format in
 * practice: another table still reads every archive, but cuts elsewhere and so loses deduplication.
 */
export const GEAR_TABLE: Int32Array = (() => {
  const table = new Int32Array(256);
  let state = 0x43525431;
  for (let i = 0; i < 256; i++) {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    table[i] = z ^ (z >>> 16);
  }
  return table;
})();

/**
 * The gear hash shifts left once per byte, so bit k depends on the last k + 1 bytes only: test the top
 * bits (the longest window, 32 bytes), 15 of them for the spec's 1/32768 chance per byte.
 */
export const BOUNDARY_MASK = (BOUNDARY_MASK_MODULUS - 1) << (32 - Math.log2(BOUNDARY_MASK_MODULUS));

export type Chunker = {
  /**
   * Feeds any number of bytes; returns the chunks they complete. A chunk lying inside `data` is a view
   * of it (copying cost more than hashing): use it before reusing `data`'s buffer. Bytes kept for the
   * next chunk are copied, so the caller may reuse its buffer after the call.
   */
  push(data: Uint8Array): Uint8Array[];
  /** The last, possibly short, chunk; undefined when nothing is pending. */
  finish(): Uint8Array | undefined;
};

/**
 * Streaming chunker: state carries over between pushes, so the cuts never depend on how the input was
 * split into pieces, and at most one maximum-size chunk is pending in memory.
 */
export function createChunker(algorithm: ChunkingAlgorithm): Chunker {
  const contentDefined = algorithm === CHUNKING_CONTENT_DEFINED;
  const gear = GEAR_TABLE;
  const mask = BOUNDARY_MASK;
  let pending: Uint8Array[] = [];
  let pendingLength = 0;
  let hash = 0;

  function take(data: Uint8Array, start: number, end: number): Uint8Array {
    let chunk: Uint8Array;
    if (pending.length === 0) {
      chunk = data.subarray(start, end);
    } else {
      pending.push(data.subarray(start, end));
      chunk = concatBytes(pending, pendingLength + end - start);
    }
    pending = [];
    pendingLength = 0;
    hash = 0;
    return chunk;
  }

  function push(data: Uint8Array): Uint8Array[] {
    const chunks: Uint8Array[] = [];
    let start = 0;
    let position = 0;
    while (position < data.length) {
      const chunkLength = pendingLength + position - start;
      const limit = contentDefined ? MAX_CHUNK_SIZE : FIXED_CHUNK_SIZE;
      const end = Math.min(data.length, position + (limit - chunkLength));
      if (contentDefined && chunkLength < MIN_CHUNK_SIZE) {
        // Bytes before the minimum can never end a chunk, so they are not even hashed.
        position = Math.min(end, position + (MIN_CHUNK_SIZE - chunkLength));
        continue;
      }
      let cut = -1;
      if (contentDefined) {
        let h = hash;
        for (let i = position; i < end; i++) {
          h = ((h << 1) + gear[data[i]!]!) | 0;
          if ((h & mask) === 0) {
            cut = i + 1;
            break;
          }
        }
        hash = h;
      }
      if (cut === -1 && pendingLength + end - start === limit) cut = end;
      if (cut === -1) {
        position = end;
        break;
      }
      chunks.push(take(data, start, cut));
      start = cut;
      position = cut;
    }
    if (start < data.length) {
      // The caller may reuse its buffer: keep a copy of the unfinished tail.
      pending.push(data.slice(start));
      pendingLength += data.length - start;
    }
    return chunks;
  }

  function finish(): Uint8Array | undefined {
    if (pendingLength === 0) return undefined;
    const chunk = concatBytes(pending, pendingLength);
    pending = [];
    pendingLength = 0;
    hash = 0;
    return chunk;
  }

  return { push, finish };
}

/** Cut points of a whole buffer at once (tests and tools). */
export function chunkBytes(data: Uint8Array, algorithm: ChunkingAlgorithm): Uint8Array[] {
  const chunker = createChunker(algorithm);
  const chunks = chunker.push(data);
  const last = chunker.finish();
  if (last !== undefined) chunks.push(last);
  return chunks;
}
