import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GeneratedBuild, GeneratedFile } from './generate.ts';
import { createByteStream, createRng } from './random.ts';

/** One realistic change between two builds, applied to a copy of the base tree. */
type UpdateName = 'edits' | 'shift-4k' | 'append' | 'replace' | 'all';

type FileChange = { path: string; apply: (old: Uint8Array) => Uint8Array };

export type PlannedUpdate = { name: UpdateName; description: string; changes: FileChange[] };

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The updates the benchmark measures, each against the base build:
 * - edits: ≈ 3% of the files (every kind, the paks too) get 1–4 small in-place edits of 1–256 bytes;
 * - shift-4k: 4 KiB inserted at the start of the largest pak (every later byte moves);
 * - append: 1 MiB (scaled) appended to one pak, as engines append patch data;
 * - replace: one texture replaced by new content of a different size;
 * - all: the four together.
 */
export function planUpdates(build: GeneratedBuild, seed: number, scale: number): PlannedUpdate[] {
  const rng = createRng(seed ^ 0x0bad5eed);
  const bytes = createByteStream(seed, 'updates');
  const byPath = new Map(build.files.map((file) => [file.path, file]));
  const largest = [...build.files].sort((a, b) => b.size - a.size || compare(a.path, b.path));
  const bigPak = requireFile(largest.find((file) => file.kind === 'pak'));
  const appendPak = requireFile(largest.filter((file) => file.kind === 'pak').at(-1));
  const textures = build.files.filter((file) => file.kind === 'texture' && file.size >= 64 * KiB);
  const replaced = requireFile(textures[rng.below(textures.length)] ?? build.files.find((f) => f.kind === 'texture'));

  const editCount = Math.max(3, Math.round(build.files.length * 0.03));
  const edited = new Set<string>([build.files.find((file) => file.kind === 'pak' && file !== bigPak)?.path ?? bigPak.path]);
  while (edited.size < Math.min(editCount, build.files.length)) edited.add(build.files[rng.below(build.files.length)]?.path ?? bigPak.path);
  const edits: FileChange[] = [...edited].sort(compare).map((path) => {
    const size = byPath.get(path)?.size ?? 0;
    const spots = Array.from({ length: rng.between(1, 4) }, () => {
      const length = Math.min(size, rng.between(1, 256));
      return { offset: rng.below(size - length + 1), patch: bytes(length).slice() };
    });
    return {
      path,
      apply: (old) => {
        const next = old.slice();
        for (const spot of spots) next.set(spot.patch, spot.offset);
        return next;
      },
    };
  });

  const inserted = bytes(4 * KiB).slice();
  const shift: FileChange = { path: bigPak.path, apply: (old) => concat(inserted, old) };
  const appended = bytes(Math.max(4 * KiB, Math.round(MiB * scale))).slice();
  const append: FileChange = { path: appendPak.path, apply: (old) => concat(old, appended) };
  const replacement = bytes(Math.round(replaced.size * 1.1)).slice();
  const replace: FileChange = { path: replaced.path, apply: () => replacement };

  return [
    { name: 'edits', description: `${edits.length} files with small in-place edits`, changes: edits },
    { name: 'shift-4k', description: `4 KiB inserted at the start of ${bigPak.path}`, changes: [shift] },
    { name: 'append', description: `${appended.length} bytes appended to ${appendPak.path}`, changes: [append] },
    { name: 'replace', description: `${replaced.path} replaced`, changes: [replace] },
    { name: 'all', description: 'all of the above', changes: mergeChanges([...edits, shift, append, replace]) },
  ];
}

/**
 * Materialises an update as a tree next to the base: unchanged files are hard links (instant, no extra
 * space), changed files are unlinked and written anew so the base keeps its bytes.
 */
export function applyUpdate(baseRoot: string, targetRoot: string, update: PlannedUpdate): void {
  const linked = Bun.spawnSync(['cp', '-al', baseRoot, targetRoot], { stderr: 'pipe' });
  if (linked.exitCode !== 0) throw new Error(`cp -al failed: ${linked.stderr.toString()}`);
  for (const change of update.changes) {
    const path = join(targetRoot, change.path);
    const next = change.apply(new Uint8Array(readFileSync(join(baseRoot, change.path))));
    unlinkSync(path);
    writeFileSync(path, next);
  }
}

function mergeChanges(changes: FileChange[]): FileChange[] {
  const merged = new Map<string, FileChange>();
  for (const change of changes) {
    const previous = merged.get(change.path);
    merged.set(change.path, previous ? { path: change.path, apply: (old) => change.apply(previous.apply(old)) } : change);
  }
  return [...merged.values()];
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function requireFile(file: GeneratedFile | undefined): GeneratedFile {
  if (!file) throw new Error('the generated build lacks a file the updates need');
  return file;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
