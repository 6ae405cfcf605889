import { describe, expect, test } from 'bun:test';
import { crc32 } from 'node:zlib';
import { crc32Combine } from '../../../src/server/domains/packages/downloads/zip/crc32-combine.ts';

function bytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

describe('crc32Combine', () => {
  test('equals crc32 of the concatenation, for lengths from 0 to beyond 64 KiB', () => {
    for (const [lengthA, lengthB] of [[0, 0], [0, 7], [5, 0], [1, 1], [3, 1000], [65_536, 65_537], [100_003, 3], [1, 262_144]] as const) {
      const a = bytes(lengthA, lengthA + 1);
      const b = bytes(lengthB, lengthB + 7);
      expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(concat(a, b)) >>> 0);
    }
  });

  test('folds a file of many chunks in order', () => {
    const chunks = [10, 65_536, 1, 40_000, 0, 333].map((length, i) => bytes(length, i + 3));
    let crc = 0;
    for (const chunk of chunks) crc = crc32Combine(crc, crc32(chunk), chunk.length);
    expect(crc).toBe(crc32(chunks.reduce(concat)) >>> 0);
  });

  test('lengths past 32 bits: 2^32 + 5 zero bytes give what zlib computes over the bytes', () => {
    // crc(Z ‖ Z) = combine(crc(Z), crc(Z), |Z|), doubling a 64 KiB block of zeros up to 4 GiB.
    let crc = crc32(new Uint8Array(0x10000));
    for (let size = 0x10000; size < 2 ** 32; size *= 2) crc = crc32Combine(crc, crc, size);
    // Python: c = 0; for _ in range(4096): c = zlib.crc32(bytes(1 << 20), c)
    expect(crc).toBe(0xd202ef8d);
    expect(crc32Combine(crc, crc32(new Uint8Array(5)), 5)).toBe(0xb1c2a1a3);
    // A second part of 2^32 bytes: c = zlib.crc32(b'\x01'), then the same 4096 MiB of zeros.
    expect(crc32Combine(crc32(new Uint8Array([1])), crc, 2 ** 32)).toBe(0x58c223be);
  });
});
