import { createHash } from 'node:crypto';
import { closeSync, fchmodSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { toHex, walkEntries, type ArchiveAdapters, type ArchiveFile, type LocatedChunk, type RemoteStats } from '../../shared/archive/index.ts';
import type { EngineStats, Fetcher, TransitionProgress } from './types.ts';
import type { LoadedIndex } from './meta.ts';
import { fileMode, type BuildFile } from './plan.ts';
import { Progress } from './progress.ts';
import type { SafeTree } from './safe-tree.ts';
import { buildStaging, type FetchTuning, type LocalSource } from './staging.ts';
import { sameHash } from './hashing.ts';

export type RepairInput = {
  tree: SafeTree;
  receipt: LoadedIndex;
  stagingDir: string;
  remote: { url: string; located: readonly LocatedChunk[]; rangeSupported: boolean; fetch?: Fetcher };
  adapters: ArchiveAdapters;
  signal?: AbortSignal;
  stats: EngineStats;
  remoteStats: RemoteStats;
  onProgress?: (progress: TransitionProgress) => void;
  tuning?: Partial<FetchTuning>;
};

const READ_BLOCK = 4 * 1024 * 1024;

type Scan = { intact: boolean; modeFixed: boolean; good: { hex: string; offset: number }[] };

/**
 * Re-hashes one file chunk by chunk in large reads. A file that is missing, not a regular file (a link
 * or folder in its place) or of the wrong size has nothing usable; otherwise every chunk that still
 * matches its hash is usable for rebuilding (this file or another holding the same chunk).
 */
function scanFile(tree: SafeTree, parts: string[], file: ArchiveFile, buffer: Uint8Array, progress: Progress, signal?: AbortSignal): Scan {
  const opened = tree.openRead(parts);
  if (!opened || opened.size !== file.size) {
    if (opened) closeSync(opened.fd);
    progress.add(file.size);
    return { intact: false, modeFixed: false, good: [] };
  }
  const good: { hex: string; offset: number }[] = [];
  let intact = true;
  let modeFixed = false;
  try {
    const chunks = file.chunks ?? [];
    let index = 0;
    let chunkStart = 0;
    let chunkLeft = chunks[0]?.size ?? 0;
    let hash = createHash('sha256');
    let position = 0;
    while (position < file.size) {
      signal?.throwIfAborted();
      const want = Math.min(buffer.length, file.size - position);
      const count = readSync(opened.fd, buffer, 0, want, position);
      if (count === 0) {
        intact = false; // Shrunk while being read.
        break;
      }
      let at = 0;
      while (at < count) {
        const take = Math.min(chunkLeft, count - at);
        hash.update(buffer.subarray(at, at + take));
        at += take;
        chunkLeft -= take;
        if (chunkLeft === 0) {
          const chunk = chunks[index]!;
          const digest = hash.digest();
          if (sameHash(new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength), chunk.hash)) good.push({ hex: toHex(chunk.hash), offset: chunkStart });
          else intact = false;
          chunkStart += chunk.size;
          index += 1;
          chunkLeft = chunks[index]?.size ?? 0;
          hash = createHash('sha256');
        }
      }
      position += count;
      progress.add(count);
    }
    const mode = fileMode(file.mode);
    if (intact && (opened.mode & 0o777) !== mode) {
      fchmodSync(opened.fd, mode);
      modeFixed = true;
    }
  } finally {
    closeSync(opened.fd);
  }
  return { intact, modeFixed, good };
}

/**
 * Checks every file, link and folder of the receipt against dir; rebuilds damaged or missing files in
 * staging (chunks that are still good anywhere in dir first, the rest by Range requests) and renames
 * them into place; fixes links and modes. Returns the paths repaired.
 */
export async function repairFiles(input: RepairInput): Promise<string[]> {
  const { tree, receipt, stats, signal } = input;
  const packageSize = receipt.index.root.size;
  const progress = new Progress(packageSize, input.onProgress);
  progress.report();
  const repaired: string[] = [];
  const damaged: BuildFile[] = [];
  const good = new Map<string, LocalSource[]>();
  const links: { parts: string[]; key: string; target: string }[] = [];
  const buffer = new Uint8Array(READ_BLOCK);
  let ordinal = 0;
  for (const { entry, parts } of walkEntries(receipt.index.root)) {
    const key = parts.join('/');
    if (entry.kind === 'directory') {
      tree.ensureFolder(parts);
      continue;
    }
    if (entry.kind === 'symlink') {
      links.push({ parts, key, target: entry.target });
      continue;
    }
    const scan = scanFile(tree, parts, entry, buffer, progress, signal);
    for (const { hex, offset } of scan.good) {
      let list = good.get(hex);
      if (!list) good.set(hex, (list = []));
      if (list.length < 4) list.push({ parts, offset });
    }
    if (scan.intact) {
      stats.bytesReused += entry.size;
      if (scan.modeFixed) repaired.push(key);
    } else {
      damaged.push({ parts, key, file: entry, mode: fileMode(entry.mode), staging: String(ordinal) });
    }
    ordinal += 1;
  }
  for (const link of links) if (tree.link(link.parts, link.target)) repaired.push(link.key);

  if (damaged.length > 0) {
    progress.grow(packageSize + damaged.reduce((sum, file) => sum + file.file.size, 0));
    try {
      await buildStaging({
        stagingDir: input.stagingDir,
        files: damaged,
        resume: false,
        local: { tree, sources: good },
        remote: input.remote,
        adapters: input.adapters,
        signal,
        stats,
        remoteStats: input.remoteStats,
        progress,
        tuning: input.tuning,
      });
      for (const file of damaged) {
        tree.moveInto(join(input.stagingDir, file.staging), file.parts);
        repaired.push(file.key);
      }
    } finally {
      rmSync(input.stagingDir, { recursive: true, force: true });
    }
  }
  progress.finish();
  return repaired.sort();
}
