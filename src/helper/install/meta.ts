import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { decodeIndex, walkFiles, type ArchiveIndex } from '../../shared/archive/index.ts';
import type { InstalledPackage } from './types.ts';
import { EngineError } from './errors.ts';
import { sha256Hex } from './hashing.ts';

/**
 * The workdir's private folder (metaDir, same file system as dir, never inside it):
 *
 *   installed.crt-index   the receipt: the installed package's encoded index, replaced atomically
 *                         (temporary name, fsync, rename, fsync of the folder) as the last step of a swap
 *   transition.json       the journal of a transition under way: { format, phase, target, base }
 *                         phase 'fetch': staging is being filled, dir is untouched (the old version runs)
 *                         phase 'swap': staging is complete and is being moved into dir; a crash here is
 *                         finished by recoverWorkdir or the next transition (the swap is idempotent)
 *   target.crt-index      the target's encoded index (written before the journal names it), so a swap
 *                         can be finished without the network
 *   staging/              the transition's files being built, named by their ordinal in the target index
 *   staging/chunks.log    resume log: SHA-256 of every chunk written at all its staging places (32 bytes
 *                         each, appended in batches after the writes)
 *   repair/               repairWorkdir's files being rebuilt
 *   lock                  the process id of the engine call working on this workdir
 */
export const metaNames = {
  receipt: 'installed.crt-index',
  journal: 'transition.json',
  target: 'target.crt-index',
  staging: 'staging',
  log: 'chunks.log',
  repair: 'repair',
  lock: 'lock',
} as const;

export type Journal = {
  format: 1;
  phase: 'fetch' | 'swap';
  /** SHA-256 (hex) of the target index. */
  target: string;
  /** SHA-256 (hex) of the receipt the transition started from (null: nothing was installed). */
  base: string | null;
};

export type LoadedIndex = { bytes: Uint8Array; index: ArchiveIndex; hash: string };

/** Writes a file atomically: temporary name, fsync, rename over, fsync of the folder. */
export function writeAtomic(path: string, bytes: Uint8Array | string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    const data = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
    let written = 0;
    while (written < data.length) written += writeSync(fd, data, written, data.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  syncFolder(dirname(path));
}

/** fsync of a folder (a rename in it survives a power cut); not possible everywhere (Windows): ignored. */
function syncFolder(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch {
    // Not supported for folders here.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function readOptional(path: string): Uint8Array | undefined {
  try {
    return new Uint8Array(readFileSync(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** An encoded index file of metaDir, decoded; undefined when absent. */
export function loadIndexFile(path: string): LoadedIndex | undefined {
  const bytes = readOptional(path);
  if (bytes === undefined) return undefined;
  try {
    return { bytes, index: decodeIndex(bytes), hash: sha256Hex(bytes) };
  } catch (error) {
    throw new EngineError('bad_meta', `${path} is damaged`, { path, cause: error });
  }
}

export function loadReceipt(metaDir: string): LoadedIndex | undefined {
  return loadIndexFile(join(metaDir, metaNames.receipt));
}

export function describeInstalled(loaded: LoadedIndex): InstalledPackage {
  let size = 0;
  let files = 0;
  for (const { file } of walkFiles(loaded.index)) {
    size += file.size;
    files += 1;
  }
  return { indexHash: loaded.hash, size, files };
}

export function readJournal(metaDir: string): Journal | undefined {
  const bytes = readOptional(join(metaDir, metaNames.journal));
  if (bytes === undefined) return undefined;
  try {
    const value = JSON.parse(new TextDecoder().decode(bytes)) as Partial<Journal>;
    const hex = /^[0-9a-f]{64}$/;
    if (
      value.format === 1 &&
      (value.phase === 'fetch' || value.phase === 'swap') &&
      typeof value.target === 'string' &&
      hex.test(value.target) &&
      (value.base === null || (typeof value.base === 'string' && hex.test(value.base)))
    ) {
      return value as Journal;
    }
  } catch {
    // Falls through: a journal that cannot be read.
  }
  throw new EngineError('bad_meta', `${join(metaDir, metaNames.journal)} is damaged`, { path: join(metaDir, metaNames.journal) });
}

export function writeJournal(metaDir: string, journal: Journal): void {
  writeAtomic(join(metaDir, metaNames.journal), JSON.stringify(journal));
}

/** Ends a transition's bookkeeping: journal first (the receipt is already the truth), then the rest. */
export function clearTransition(metaDir: string): void {
  rmSync(join(metaDir, metaNames.journal), { force: true });
  rmSync(join(metaDir, metaNames.target), { force: true });
  rmSync(join(metaDir, metaNames.staging), { recursive: true, force: true });
}

const held = new Set<string>();

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `work` holding the workdir's lock: one engine call per workdir at a time, in this process (a set)
 * and across processes (metaDir/lock holds the pid; a lock whose process is gone, after a crash, is
 * taken over).
 */
export async function withLock<T>(metaDir: string, work: () => Promise<T>): Promise<T> {
  if (held.has(metaDir)) throw new EngineError('busy', 'another install, update or repair is running on this workdir', { path: metaDir });
  mkdirSync(metaDir, { recursive: true, mode: 0o700 });
  const path = join(metaDir, metaNames.lock);
  const pid = String(process.pid);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, pid);
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw lockError(metaDir, error);
      const owner = Number(new TextDecoder().decode(readOptional(path) ?? new Uint8Array()).trim());
      if (Number.isSafeInteger(owner) && owner > 0 && owner !== process.pid && processAlive(owner)) {
        throw new EngineError('busy', `another process (${owner}) is installing into this workdir`, { path: metaDir });
      }
      // Left by a process that is gone (or by this one before a restart): take it over.
      rmSync(path, { force: true });
    }
  }
  held.add(metaDir);
  try {
    return await work();
  } finally {
    held.delete(metaDir);
    try {
      unlinkSync(path);
    } catch {
      // Removed with the metaDir (uninstall).
    }
  }
}

function lockError(metaDir: string, error: unknown): EngineError {
  if ((error as NodeJS.ErrnoException).code === 'EEXIST') return new EngineError('busy', 'another process is installing into this workdir', { path: metaDir });
  return new EngineError('bad_meta', `cannot lock ${metaDir}: ${(error as Error).message}`, { path: metaDir, cause: error });
}
