import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BOUNDARY_MASK, GEAR_TABLE } from '../../../src/shared/archive/index.ts';
import type { GeneratedBuild } from './generate.ts';
import type { PlannedUpdate } from './updates.ts';

/** Chunk size limits to try with the format's gear hash and 1/32768 boundary test. */
export type ChunkLimits = { min: number; max: number };

/**
 * Chunk lengths of a whole buffer, cut exactly as the library's content-defined chunker does (no cut
 * before `min`, hash restarted at every cut, forced cut at `max`), but with other limits.
 */
function cutLengths(data: Uint8Array, limits: ChunkLimits): number[] {
  const lengths: number[] = [];
  const gear = GEAR_TABLE;
  const mask = BOUNDARY_MASK;
  let start = 0;
  while (start < data.length) {
    const end = Math.min(data.length, start + limits.max);
    let cut = end;
    let h = 0;
    for (let i = start + limits.min; i < end; i++) {
      h = ((h << 1) + gear[data[i]!]!) | 0;
      if ((h & mask) === 0) {
        cut = i + 1;
        break;
      }
    }
    lengths.push(cut - start);
    start = cut;
  }
  return lengths;
}

function chunkKeys(data: Uint8Array, limits: ChunkLimits): Array<{ key: bigint; size: number }> {
  const out: Array<{ key: bigint; size: number }> = [];
  let offset = 0;
  for (const length of cutLengths(data, limits)) {
    out.push({ key: BigInt(Bun.hash(data.subarray(offset, offset + length))), size: length });
    offset += length;
  }
  return out;
}

export type SimulatedLimits = {
  limits: ChunkLimits;
  /** Distinct chunks of the whole base build: index records and stored objects. */
  chunkCount: number;
  meanChunkSize: number;
  /** New chunk bytes per update (each changed file against its own old version). */
  patchBytes: Map<string, number>;
};

/**
 * What other limits would have given on this build: whole-tree chunk count and each update's new chunk
 * bytes. Changed files are compared with their own old version only (cross-file dedup is rare here).
 */
export function simulateLimits(build: GeneratedBuild, updates: readonly PlannedUpdate[], limits: ChunkLimits): SimulatedLimits {
  const keys = new Set<bigint>();
  let total = 0;
  for (const file of build.files) {
    const data = readFileSync(join(build.root, file.path));
    for (const chunk of chunkKeys(data, limits)) {
      if (!keys.has(chunk.key)) {
        keys.add(chunk.key);
        total += chunk.size;
      }
    }
  }
  const patchBytes = new Map<string, number>();
  for (const update of updates) {
    let bytes = 0;
    for (const change of update.changes) {
      const old = new Uint8Array(readFileSync(join(build.root, change.path)));
      const oldKeys = new Set(chunkKeys(old, limits).map((chunk) => chunk.key));
      const seen = new Set<bigint>();
      for (const chunk of chunkKeys(change.apply(old), limits)) {
        if (oldKeys.has(chunk.key) || seen.has(chunk.key)) continue;
        seen.add(chunk.key);
        bytes += chunk.size;
      }
    }
    patchBytes.set(update.name, bytes);
  }
  return { limits, chunkCount: keys.size, meanChunkSize: total / Math.max(1, keys.size), patchBytes };
}
