import { createCipheriv, createHash } from 'node:crypto';

/** Small, fast, seeded PRNG (sfc32): deterministic choices for the benchmark and the fuzzer. */
export type Rng = {
  /** Uniform 32-bit unsigned integer. */
  nextU32(): number;
  /** Uniform integer in [0, n). */
  below(n: number): number;
  /** Uniform integer in [min, max] (inclusive). */
  between(min: number, max: number): number;
  /** Log-uniform integer in [min, max]: many small, few large, like real asset sizes. */
  logBetween(min: number, max: number): number;
  /** Uniform float in [0, 1). */
  float(): number;
  pick<T>(items: readonly T[]): T;
  fill(bytes: Uint8Array): void;
};

export function createRng(seed: number): Rng {
  let a = 0x9e3779b9 ^ seed;
  let b = 0x243f6a88 ^ Math.imul(seed, 0x85ebca6b);
  let c = 0xb7e15162 ^ Math.imul(seed, 0xc2b2ae35);
  let d = 1;
  const nextU32 = (): number => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (a + b + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 16; i++) nextU32();
  const below = (n: number): number => (n <= 0 ? 0 : Math.floor((nextU32() / 4294967296) * n));
  return {
    nextU32,
    below,
    between: (min, max) => min + below(max - min + 1),
    logBetween: (min, max) => Math.round(Math.exp(Math.log(min) + (nextU32() / 4294967296) * (Math.log(max) - Math.log(min)))),
    float: () => nextU32() / 4294967296,
    pick<T>(items: readonly T[]): T {
      const item = items[below(items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
    fill(bytes) {
      let i = 0;
      for (; i + 4 <= bytes.length; i += 4) {
        const v = nextU32();
        bytes[i] = v & 0xff; bytes[i + 1] = (v >>> 8) & 0xff; bytes[i + 2] = (v >>> 16) & 0xff; bytes[i + 3] = v >>> 24;
      }
      for (; i < bytes.length; i++) bytes[i] = nextU32() & 0xff;
    },
  };
}

/**
 * A deterministic stream of incompressible bytes keyed by (seed, stream): AES-128-CTR over zeros runs at
 * ≈ 2.5 GB/s here, far faster than any JS PRNG, and each file gets its own stream so the order in which
 * files are written does not change their bytes.
 */
export function createByteStream(seed: number, stream: string): (length: number) => Uint8Array {
  const key = createHash('sha256').update(`${seed}/${stream}`).digest();
  const cipher = createCipheriv('aes-128-ctr', key.subarray(0, 16), key.subarray(16, 32));
  let zeros = new Uint8Array(0);
  return (length) => {
    if (zeros.length < length) zeros = new Uint8Array(length);
    const out = cipher.update(zeros.subarray(0, length));
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  };
}
