import { createRng, type Rng } from '../../bench/archive/random.ts';
import type { Seed } from './corpus.ts';
import { mutateBytes, randomBytes } from './mutate-bytes.ts';
import { mutateHeader, mutateIndexSemantics, mutatePatchSection, withIndex } from './mutate-structure.ts';

/** One fuzz case: the bytes plus how they are fed to the reader. Fully determined by (run seed, number). */
export type FuzzInput = {
  number: number;
  seed: Seed;
  bytes: Uint8Array;
  /** What was done to the seed, for the report. */
  recipe: string[];
  /** How the stream cuts the bytes into pieces. */
  split: 'whole' | 'random' | 'tiny';
  /** The stream fails with a plain Error after this many bytes (a dropped connection). */
  failAfter?: number;
  /** WebCrypto and zstddec instead of Bun's native hashing and zstd. */
  webAdapters: boolean;
  /** Patch seeds: serve base chunks to the reader (else it skips them). */
  serveBase: boolean;
  /** Consume with readAllFiles instead of chunks(). */
  readFiles: boolean;
  /** Consume with extractArchive into an empty folder (then checked for escapes). */
  extract: boolean;
};

function inputRng(runSeed: number, number: number): Rng {
  return createRng((Math.imul(runSeed, 0x9e3779b1) ^ Math.imul(number + 1, 0x85ebca77)) | 0);
}

/** Builds fuzz case `number` of the run `runSeed`: a seed plus one family of mutations. */
export function makeInput(corpus: readonly Seed[], runSeed: number, number: number): FuzzInput {
  const rng = inputRng(runSeed, number);
  // Small seeds most of the time (fast: thousands per second); the 100 KiB multi-chunk ones one time in four.
  const small = corpus.filter((candidate) => candidate.bytes.length <= 16 * 1024);
  const seed = rng.below(4) !== 0 && small.length > 0 ? rng.pick(small) : rng.pick(corpus);
  const large = seed.bytes.length > 16 * 1024;
  const recipe: string[] = [seed.name];
  let bytes = seed.bytes;
  const family = rng.below(100);
  if (family < 3) {
    recipe.push('unmutated');
  } else if (family < 30) {
    const count = rng.between(1, 4);
    for (let i = 0; i < count; i++) bytes = mutateBytes(rng, bytes, { start: 0, end: bytes.length }, corpus, recipe);
  } else if (family < 62) {
    let index = seed.bytes.subarray(seed.indexStart, seed.indexEnd);
    const count = rng.between(1, 3);
    for (let i = 0; i < count; i++) index = mutateBytes(rng, index, { start: 0, end: index.length }, [seed], recipe);
    const fixSize = rng.below(10) !== 0;
    recipe.push(fixSize ? 'index fixed' : 'index fixed, size kept');
    bytes = withIndex(seed, index, fixSize);
  } else if (family < 70) {
    bytes = mutateHeader(rng, seed, recipe);
  } else if (family < 77 && seed.patch) {
    bytes = mutatePatchSection(rng, seed, recipe);
  } else if (family < 88) {
    const count = rng.between(1, 2);
    for (let i = 0; i < count; i++) bytes = mutateBytes(rng, bytes, { start: seed.dataStart, end: bytes.length }, corpus, recipe);
  } else if (family < 97) {
    bytes = mutateIndexSemantics(rng, seed, recipe);
  } else {
    bytes = randomBytes(rng, rng.below(600));
    if (rng.below(2) === 0 && bytes.length >= 4) bytes.set(seed.bytes.subarray(0, 4));
    recipe.length = 0;
    recipe.push(`random ${bytes.length} bytes`);
  }
  const splitRoll = rng.below(20);
  const split = splitRoll < 10 ? 'whole' : splitRoll < 17 || bytes.length > 4096 ? 'random' : 'tiny';
  const input: FuzzInput = {
    number,
    seed,
    bytes,
    recipe,
    split,
    // the wasm decoder is slower on the large seeds: less often there.
    webAdapters: rng.below(large ? 16 : 5) === 0,
    serveBase: seed.patch && rng.below(8) !== 0,
    readFiles: rng.below(6) === 0,
    extract: rng.below(48) === 0,
  };
  if (rng.below(40) === 0) input.failAfter = rng.below(bytes.length + 1);
  return input;
}

/** The piece sizes a stream delivers `input` in (deterministic per input). */
export function splitPieces(input: FuzzInput, runSeed: number): number[] {
  const total = input.bytes.length;
  if (input.split === 'whole' || total === 0) return [total];
  const rng = inputRng(runSeed ^ 0x51ab, input.number);
  const max = input.split === 'tiny' ? 8 : Math.max(1, total >> 2);
  const pieces: number[] = [];
  for (let done = 0; done < total; ) {
    const size = Math.min(total - done, rng.between(1, max));
    pieces.push(size);
    done += size;
  }
  return pieces;
}
