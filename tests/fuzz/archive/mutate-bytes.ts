import { concatBytes } from '../../../src/shared/archive/bytes.ts';
import type { Rng } from '../../bench/archive/random.ts';
import type { Seed } from './corpus.ts';

const boundaryValues: readonly bigint[] = [
  0n, 1n, 2n, 3n, 4n, 127n, 128n, 255n, 256n, 16383n, 16384n, 32767n, 32768n, 65535n, 65536n, 262143n, 262144n, 262145n,
  1048575n, 1048576n, 2n ** 21n - 1n, 2n ** 21n, 2n ** 28n - 1n, 2n ** 28n, 2n ** 31n - 1n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n,
  2n ** 32n + 1n, 2n ** 35n, 2n ** 49n - 1n, 2n ** 49n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 56n - 1n, 2n ** 56n, 2n ** 63n, 2n ** 64n - 1n,
];
const interestingBytes = [0x00, 0x01, 0x02, 0x7f, 0x80, 0x81, 0xff, 0xfe, 0x3f, 0x40, 0x2f, 0x5c, 0x2e];

/** LEB128 of any non-negative integer, optionally padded with redundant groups (non-minimal forms). */
export function encodeLoose(value: bigint, padding = 0): Uint8Array {
  const out: number[] = [];
  let rest = value;
  do {
    out.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  } while (rest > 0n);
  for (let i = 0; i < padding; i++) out.push(0x80);
  out[out.length - 1]! &= 0x7f;
  return Uint8Array.from(out);
}

export function pickVarint(rng: Rng): Uint8Array {
  const roll = rng.below(10);
  if (roll === 0) return Uint8Array.from({ length: rng.between(8, 12) }, () => 0xff); // endless continuation
  if (roll === 1) return encodeLoose(BigInt(rng.below(300)), rng.between(1, 3)); // non-minimal
  const base = rng.pick(boundaryValues);
  const nudge = BigInt(rng.between(-1, 1));
  return encodeLoose(base + nudge < 0n ? 0n : base + nudge);
}

export function sha256(bytes: Uint8Array): Uint8Array {
  const hasher = new Bun.CryptoHasher('sha256');
  hasher.update(bytes);
  return new Uint8Array(hasher.digest());
}

export function randomBytes(rng: Rng, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  rng.fill(bytes);
  return bytes;
}

export type Region = { start: number; end: number };

/** One byte-level mutation inside [start, end) of `bytes` (the region may be the whole input). */
export function mutateBytes(rng: Rng, bytes: Uint8Array, region: Region, corpus: readonly Seed[], recipe: string[]): Uint8Array {
  const { start } = region;
  const end = Math.min(region.end, bytes.length);
  const span = Math.max(0, end - start);
  const at = start + rng.below(span + 1);
  switch (rng.below(11)) {
    case 0: {
      const out = bytes.slice();
      const flips = rng.between(1, 8);
      for (let i = 0; i < flips && span > 0; i++) {
        const position = start + rng.below(span);
        out[position]! ^= 1 << rng.below(8);
      }
      recipe.push(`bitflip×${flips}`);
      return out;
    }
    case 1: {
      if (span === 0) return bytes;
      const out = bytes.slice();
      const position = start + rng.below(span);
      const value = rng.below(3) === 0 ? rng.below(256) : rng.pick(interestingBytes);
      out[position] = value;
      recipe.push(`set@${position}=${value}`);
      return out;
    }
    case 2: {
      const length = start + rng.below(span + 1);
      recipe.push(`truncate@${length}`);
      return bytes.slice(0, length);
    }
    case 3: {
      const insert = rng.below(2) === 0 ? randomBytes(rng, rng.between(1, 64)) : new Uint8Array(rng.between(1, 64)).fill(rng.pick(interestingBytes));
      recipe.push(`insert@${at}+${insert.length}`);
      return concatBytes([bytes.subarray(0, at), insert, bytes.subarray(at)]);
    }
    case 4: {
      const length = Math.min(end - at, rng.between(1, 64));
      recipe.push(`delete@${at}-${length}`);
      return concatBytes([bytes.subarray(0, at), bytes.subarray(at + length)]);
    }
    case 5: {
      const other = rng.pick(corpus).bytes;
      const from = rng.below(other.length + 1);
      recipe.push(`splice@${at}<-${from}`);
      return concatBytes([bytes.subarray(0, at), other.subarray(from)]);
    }
    case 6: {
      const other = rng.pick(corpus).bytes;
      const from = rng.below(other.length);
      const length = Math.min(other.length - from, rng.between(1, 128));
      const out = concatBytes([bytes.subarray(0, at), other.subarray(from, from + length), bytes.subarray(Math.min(bytes.length, at + length))]);
      recipe.push(`overwrite@${at}<-${from}+${length}`);
      return out;
    }
    case 7:
    case 8: {
      const varint = pickVarint(rng);
      const replaced = rng.between(0, 3);
      recipe.push(`varint@${at}=[${[...varint].join(',')}]/${replaced}`);
      return concatBytes([bytes.subarray(0, at), varint, bytes.subarray(Math.min(bytes.length, at + replaced))]);
    }
    case 9: {
      const length = Math.min(end - at, rng.between(1, 256));
      const times = rng.between(2, 8);
      recipe.push(`repeat@${at}+${length}×${times}`);
      return concatBytes([bytes.subarray(0, at), ...Array.from({ length: times }, () => bytes.subarray(at, at + length)), bytes.subarray(at + length)]);
    }
    default: {
      const length = Math.min(end - at, rng.between(1, 32));
      const out = bytes.slice();
      rng.fill(out.subarray(at, at + length));
      recipe.push(`random@${at}+${length}`);
      return out;
    }
  }
}

