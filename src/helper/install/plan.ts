import { MODE_EXECUTABLE, walkEntries, type ArchiveEntry, type ArchiveFile, type ArchiveIndex } from '../../shared/archive/index.ts';

/** A file of the target with its place: parts from the root, 'a/b/c' as key. */
type PlannedFile = { parts: string[]; key: string; file: ArchiveFile; mode: number };

/** A file to build in staging: named by its ordinal among the target's files (stable for one target). */
export type BuildFile = PlannedFile & { staging: string };

type PlannedLink = { parts: string[]; key: string; target: string };

/**
 * What a transition from `from` (the receipt; undefined: nothing installed) to `to` does to dir. Derived
 * only from the two indexes, so a crashed swap is finished with exactly the same plan.
 */
export type TransitionPlan = {
  /** Files whose chunks changed or that are new: built in staging, then renamed into place. */
  build: BuildFile[];
  /** Files with the same chunks at the same path: left untouched (bytes reused). */
  unchanged: PlannedFile[];
  /** Unchanged files whose executable bit changed: chmod only. */
  modeChanges: PlannedFile[];
  /** Every directory of the target, parents first. */
  directories: string[][];
  /** Every symlink of the target. */
  links: PlannedLink[];
  /** Files and links of the old version at paths where the target has nothing. */
  removals: string[][];
  /** Directories of the old version the target lacks, deepest first (removed when empty). */
  oldDirectories: string[][];
  /** Bytes of the files to build. */
  buildBytes: number;
  /** Bytes of unchanged files. */
  unchangedBytes: number;
};

/** Permission bits of a file: 0o755 when executable, else 0o644. */
export function fileMode(mode: number): number {
  return (mode & MODE_EXECUTABLE) !== 0 ? 0o755 : 0o644;
}

function sameChunks(a: ArchiveFile, b: ArchiveFile): boolean {
  if (a.size !== b.size) return false;
  const left = a.chunks ?? [];
  const right = b.chunks ?? [];
  if (left.length !== right.length) return false;
  for (let i = 0; i < left.length; i++) {
    const x = left[i]!.hash;
    const y = right[i]!.hash;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

function entriesOf(index: ArchiveIndex | undefined): Map<string, { entry: ArchiveEntry; parts: string[] }> {
  const entries = new Map<string, { entry: ArchiveEntry; parts: string[] }>();
  if (index) for (const { entry, parts } of walkEntries(index.root)) entries.set(parts.join('/'), { entry, parts });
  return entries;
}

export function planTransition(from: ArchiveIndex | undefined, to: ArchiveIndex): TransitionPlan {
  const old = entriesOf(from);
  const plan: TransitionPlan = {
    build: [],
    unchanged: [],
    modeChanges: [],
    directories: [],
    links: [],
    removals: [],
    oldDirectories: [],
    buildBytes: 0,
    unchangedBytes: 0,
  };
  const target = new Set<string>();
  let ordinal = 0;
  for (const { entry, parts } of walkEntries(to.root)) {
    const key = parts.join('/');
    target.add(key);
    switch (entry.kind) {
      case 'directory':
        plan.directories.push(parts);
        break;
      case 'symlink':
        plan.links.push({ parts, key, target: entry.target });
        break;
      case 'file': {
        const planned: PlannedFile = { parts, key, file: entry, mode: fileMode(entry.mode) };
        const before = old.get(key)?.entry;
        if (before?.kind === 'file' && sameChunks(before, entry)) {
          plan.unchanged.push(planned);
          plan.unchangedBytes += entry.size;
          if (fileMode(before.mode) !== planned.mode) plan.modeChanges.push(planned);
        } else {
          plan.build.push({ ...planned, staging: String(ordinal) });
          plan.buildBytes += entry.size;
        }
        ordinal += 1;
        break;
      }
    }
  }
  for (const [key, { entry, parts }] of old) {
    if (target.has(key)) continue;
    if (entry.kind === 'directory') plan.oldDirectories.push(parts);
    else plan.removals.push(parts);
  }
  plan.oldDirectories.sort((a, b) => b.length - a.length);
  return plan;
}
