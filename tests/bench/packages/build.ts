import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createContent, writeGeneratedFile, type ContentKind } from '../archive/generate.ts';
import { createByteStream, createRng } from '../archive/random.ts';

type BuildFile = { path: string; size: number; kind: ContentKind; executable: boolean };
export type PackageBuild = { root: string; files: BuildFile[]; totalBytes: number };

const KiB = 1024;
const MiB = 1024 * KiB;
const FILE_COUNT = 200;
/** Bytes each changed file of an update gets overwritten with (in place: sizes stay). */
export const UPDATE_EDIT_BYTES = 64 * KiB;

/**
 * A game build of `totalBytes` in 200 files: one executable, then log-uniform sizes (4 KiB..64 MiB
 * before scaling: many small, a few large), ≈ 80% incompressible (audio, binaries), the rest
 * compressible texture and level data. Every size is scaled by the same factor, so a build twice the
 * size has the same files, each twice as large. Deterministic per (seed, totalBytes).
 */
function planPackageBuild(seed: number, totalBytes: number): BuildFile[] {
  const rng = createRng(seed);
  const plan: { path: string; raw: number; kind: ContentKind; executable: boolean }[] = [
    { path: 'bin/game.x86_64', raw: 48 * MiB, kind: 'random', executable: true },
  ];
  for (let i = 1; i < FILE_COUNT; i++) {
    const roll = rng.float();
    const kind: ContentKind = roll < 0.8 ? 'random' : roll < 0.92 ? 'texture' : 'level';
    const name = String(i).padStart(3, '0');
    const path =
      kind === 'texture' ? `assets/textures/tex_${name}.dds` : kind === 'level' ? `assets/levels/level_${name}.lvl` : `assets/audio/clip_${name}.ogg`;
    plan.push({ path, raw: rng.logBetween(4 * KiB, 64 * MiB), kind, executable: false });
  }
  const rawTotal = plan.reduce((sum, item) => sum + item.raw, 0);
  const files = plan.map((item) => ({ path: item.path, size: Math.max(1, Math.floor((item.raw * totalBytes) / rawTotal)), kind: item.kind, executable: item.executable }));
  const planned = files.reduce((sum, item) => sum + item.size, 0);
  files[0]!.size += totalBytes - planned;
  return files;
}

/** Writes the planned build under `root` (≈ 1 GB/s for the incompressible part). */
export function generatePackageBuild(root: string, seed: number, totalBytes: number): PackageBuild {
  const files = planPackageBuild(seed, totalBytes);
  for (const file of files) writeGeneratedFile(join(root, file.path), file.size, createContent(seed, file.path, file.kind), file.executable);
  return { root, files, totalBytes: files.reduce((sum, item) => sum + item.size, 0) };
}

/**
 * An update: 1% of the files (at least one, picked by the seed) get UPDATE_EDIT_BYTES of new bytes
 * overwritten in their middle, as a patched level or re-exported asset would. Returns what changed.
 */
export function applyUpdate(build: PackageBuild, seed: number): { files: string[]; editedBytes: number } {
  const rng = createRng(seed ^ 0x0bda7e);
  const count = Math.max(1, Math.round(build.files.length / 100));
  const candidates = [...build.files];
  const changed: string[] = [];
  let editedBytes = 0;
  for (let i = 0; i < count && candidates.length > 0; i++) {
    const file = candidates.splice(rng.below(candidates.length), 1)[0]!;
    const length = Math.min(UPDATE_EDIT_BYTES, file.size);
    const offset = Math.floor((file.size - length) / 2);
    const bytes = createByteStream(seed, `update/${file.path}`)(length);
    const fd = openSync(join(build.root, file.path), 'r+');
    try {
      writeSync(fd, bytes, 0, length, offset);
    } finally {
      closeSync(fd);
    }
    changed.push(file.path);
    editedBytes += length;
  }
  return { files: changed, editedBytes };
}
