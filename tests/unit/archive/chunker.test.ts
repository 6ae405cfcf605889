import { describe, expect, test } from 'bun:test';
import {
  BOUNDARY_MASK,
  FIXED_CHUNK_SIZE,
  GEAR_TABLE,
  MAX_CHUNK_SIZE,
  MIN_CHUNK_SIZE,
  chunkBytes,
  concatBytes,
  createChunker,
  decodeVarint,
  encodeVarint,
  equalBytes,
  toHex,
  createBunAdapters,
} from '../../../src/shared/archive/index.ts';
import { createRandom, fillPseudoRandom } from './support.ts';

const adapters = createBunAdapters();
const data = new Uint8Array(8 * 1024 * 1024);
fillPseudoRandom(data, 12345);

describe('content-defined chunking', () => {
  const chunks = chunkBytes(data, 1);

  test('chunks rebuild the input and respect min and max sizes', () => {
    expect(equalBytes(concatBytes(chunks), data)).toBe(true);
    chunks.slice(0, -1).forEach((chunk) => {
      expect(chunk.length).toBeGreaterThanOrEqual(MIN_CHUNK_SIZE);
      expect(chunk.length).toBeLessThanOrEqual(MAX_CHUNK_SIZE);
    });
  });

  test('average size is near 48 KiB (16 KiB minimum + 32 KiB expected run) on random data', () => {
    const average = data.length / chunks.length;
    expect(average).toBeGreaterThan(36 * 1024);
    expect(average).toBeLessThan(62 * 1024);
  });

  test('the cut points do not depend on how the input is split', () => {
    const random = createRandom(7);
    for (let round = 0; round < 4; round++) {
      const chunker = createChunker(1);
      const pieces: Uint8Array[] = [];
      let offset = 0;
      while (offset < data.length) {
        const length = 1 + Math.floor(random() * (round === 0 ? 64 : 300_000));
        // Hand out a buffer reused after the call: the chunker must copy what it keeps for later.
        const piece = data.slice(offset, offset + length);
        pieces.push(...chunker.push(piece).map((chunk) => chunk.slice()));
        piece.fill(0);
        offset += length;
      }
      const last = chunker.finish();
      if (last !== undefined) pieces.push(last);
      expect(pieces.map((p) => p.length)).toEqual(chunks.map((c) => c.length));
      expect(equalBytes(concatBytes(pieces), data)).toBe(true);
    }
  });

  test('a 4 KiB insert at the start changes at most 3 chunks', () => {
    const insert = new Uint8Array(4096);
    fillPseudoRandom(insert, 999);
    const shifted = chunkBytes(concatBytes([insert, data]), 1);
    const key = (chunk: Uint8Array) => toHex(adapters.sha256(chunk) as Uint8Array);
    const before = new Set(chunks.map(key));
    const changed = shifted.filter((chunk) => !before.has(key(chunk)));
    expect(changed.length).toBeLessThanOrEqual(3);
    expect(changed.length).toBeGreaterThanOrEqual(1);
  });

  test('constant data is cut at the maximum size', () => {
    const zeros = chunkBytes(new Uint8Array(MAX_CHUNK_SIZE * 2 + 5), 1);
    expect(zeros.map((c) => c.length)).toEqual([MAX_CHUNK_SIZE, MAX_CHUNK_SIZE, 5]);
  });

  test('gear table and mask are the documented ones', () => {
    expect([GEAR_TABLE[0], GEAR_TABLE[1], GEAR_TABLE[255]]).toEqual([-69814654, 1519117286, -872821756]);
    expect(BOUNDARY_MASK >>> 0).toBe(0xfffe0000);
  });
});

describe('fixed chunking (algorithm 0)', () => {
  test('cuts every 256 KiB whatever the content', () => {
    const sizes = chunkBytes(data.subarray(0, FIXED_CHUNK_SIZE * 3 + 10), 0).map((c) => c.length);
    expect(sizes).toEqual([FIXED_CHUNK_SIZE, FIXED_CHUNK_SIZE, FIXED_CHUNK_SIZE, 10]);
  });

  test('empty input gives no chunk', () => {
    expect(chunkBytes(new Uint8Array(0), 0)).toEqual([]);
    expect(chunkBytes(new Uint8Array(0), 1)).toEqual([]);
  });
});

describe('varints', () => {
  test.each([0, 1, 127, 128, 300, 2 ** 31, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER])('%p round-trips', (value) => {
    const bytes = encodeVarint(value);
    expect(decodeVarint(bytes, 0)).toEqual({ value, next: bytes.length });
  });

  test('7 bits per byte, low group first', () => {
    expect(toHex(encodeVarint(300))).toBe('ac02');
    expect(toHex(encodeVarint(127))).toBe('7f');
  });

  test('truncated, overlong, non-minimal and unsafe encodings are invalid_entry', () => {
    for (const hex of ['80', 'ffffffffffffffffff01', '8000', 'ffffffffffffff7f']) {
      const bytes = Uint8Array.from(hex.match(/../g)!.map((h) => Number.parseInt(h, 16)));
      expect(() => decodeVarint(bytes, 0)).toThrow(expect.objectContaining({ code: 'invalid_entry' }));
    }
    expect(() => encodeVarint(-1)).toThrow();
    expect(() => encodeVarint(2 ** 53)).toThrow();
  });
});
