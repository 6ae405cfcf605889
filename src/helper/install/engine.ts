import { mkdirSync, rmSync, statfsSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import {
  archiveDataStart,
  fromHex,
  locateChunks,
  mapChunkPlacements,
  readRemoteIndex,
  readRemoteIndexHeader,
  remoteIndexFrom,
  toHex,
  walkEntries,
  type ArchiveAdapters,
  type ArchiveIndex,
  type RemoteIndex,
  type RemoteStats,
} from '../../shared/archive/index.ts';
import { fetchIndexWithDictionary } from '../../shared/archive/dictionary-index.ts';
import type { EngineStats, InstalledPackage, RepairOptions, RepairResult, TransitionOptions, TransitionResult } from './types.ts';
import { EngineError } from './errors.ts';
import { engineAdapters } from './hashing.ts';
import {
  clearTransition,
  describeInstalled,
  loadIndexFile,
  loadReceipt,
  metaNames,
  readJournal,
  withLock,
  writeAtomic,
  writeJournal,
  type LoadedIndex,
} from './meta.ts';
import { planTransition, type TransitionPlan } from './plan.ts';
import { Progress } from './progress.ts';
import { repairFiles } from './repair.ts';
import { SafeTree } from './safe-tree.ts';
import { buildStaging, type FetchTuning, type LocalSource } from './staging.ts';
import { applySwap } from './swap.ts';

/**
 * The companion app's install engine (contract: types.ts). A transition makes `dir` equal to the
 * package at `packageUrl`:
 *
 *   1. a swap a crash interrupted is finished first (recover);
 *   2. the archive's header and index are read with Range requests (shared remote.ts: hash verified,
 *      names and links checked by the shared rules; patch archives refused); with an index URL and a
 *      receipt, only the header and index hash come from the archive and the index from the index URL,
 *      as a delta against the receipt when the server offers one (readTargetIndex);
 *   3. the plan (plan.ts) compares the receipt (installed index) with the target: files with the same
 *      chunks stay untouched, the others are built in metaDir/staging (staging.ts) from chunks already
 *      on disk (any file of the installed version, verified) and runs of Range requests for the rest;
 *   4. the journal turns to 'swap' and staged files are renamed into dir, leavers removed, links made,
 *      modes set (swap.ts, idempotent); the new receipt is written atomically; the journal goes.
 *
 * Until step 4 dir is untouched, so a crash or abort leaves the old version launchable; the next call
 * for the same target resumes with what staging holds (chunk-level, each kept chunk re-verified). The
 * layout of metaDir is described in meta.ts.
 */
export type EngineTuning = {
  tuning?: Partial<FetchTuning>;
  /** Tests: called after each staged file is moved into dir (a crash test kills the process there). */
  afterSwapMove?: (moved: number) => void;
};

const emptyStats = (): EngineStats => ({ bytesFetched: 0, requests: 0, bytesReused: 0, bytesWritten: 0 });

function resolveFolders(options: { dir: string; metaDir: string }): { dir: string; metaDir: string } {
  const dir = resolve(options.dir);
  const metaDir = resolve(options.metaDir);
  const inside = (parent: string, child: string) => child === parent || relative(parent, child).split(sep)[0] !== '..';
  if (inside(dir, metaDir) || inside(metaDir, dir)) {
    throw new EngineError('bad_folders', `the workdir (${dir}) and its private folder (${metaDir}) must not contain each other`);
  }
  return { dir, metaDir };
}

/** Finishes a swap a crash interrupted (journal phase 'swap'); no network. */
function finishPendingSwap(dir: string, metaDir: string): void {
  const journal = readJournal(metaDir);
  if (journal?.phase !== 'swap') return;
  const receipt = loadReceipt(metaDir);
  if (receipt?.hash === journal.target) {
    // The receipt was written: only the clean-up was left.
    clearTransition(metaDir);
    return;
  }
  const target = loadIndexFile(join(metaDir, metaNames.target));
  if (!target || target.hash !== journal.target) {
    throw new EngineError('bad_meta', `the interrupted update of ${dir} cannot be finished: its target index is missing`, { path: metaDir });
  }
  completeSwap(dir, metaDir, planTransition(receipt?.index, target.index), target);
}

function completeSwap(dir: string, metaDir: string, plan: TransitionPlan, target: LoadedIndex, afterMove?: (moved: number) => void): void {
  mkdirSync(dir, { recursive: true });
  applySwap(new SafeTree(dir), join(metaDir, metaNames.staging), plan, afterMove);
  writeAtomic(join(metaDir, metaNames.receipt), target.bytes);
  clearTransition(metaDir);
}

/** Where each chunk of the installed version is in dir (every file, every offset). */
function localSourcesOf(index: ArchiveIndex, wanted: ReadonlySet<string>): Map<string, LocalSource[]> {
  const sources = new Map<string, LocalSource[]>();
  for (const [hex, places] of mapChunkPlacements(index)) {
    if (!wanted.has(hex)) continue;
    sources.set(
      hex,
      places.map((place) => ({ parts: place.parts, offset: place.offset })),
    );
  }
  return sources;
}

function chunksOf(plan: TransitionPlan): Set<string> {
  const hexes = new Set<string>();
  for (const file of plan.build) for (const chunk of file.file.chunks ?? []) hexes.add(toHex(chunk.hash));
  return hexes;
}

/** Refuses to start when the file system cannot hold the files to build (with 64 MiB to spare). */
function checkSpace(metaDir: string, bytes: number): void {
  let free: number;
  try {
    const stats = statfsSync(metaDir);
    free = stats.bavail * stats.bsize;
  } catch {
    return; // Unknown: let the writes tell.
  }
  if (bytes + 64 * 1024 * 1024 > free) {
    throw new EngineError('no_space', `the package needs ${bytes} bytes; ${free} are free`, { path: metaDir });
  }
}

/**
 * The target's index. With an index URL and a receipt: the archive's header and index hash (two small
 * Range requests) alongside the index URL fetched with the receipt offered as dictionary (RFC 9842 dcz,
 * shared/archive/dictionary-index.ts); the index is checked against the archive's size and hash. When
 * the archive's hash is the receipt's, the receipt is the target and the index fetch is dropped. Any
 * failure of that path (expired index URL, a server without Range, a delta that does not decode, an
 * index of another package) falls back to reading the index from the archive, as without an index URL.
 */
async function readTargetIndex(
  options: TransitionOptions,
  receipt: LoadedIndex | undefined,
  adapters: ArchiveAdapters,
  remoteStats: RemoteStats,
  stats: EngineStats,
): Promise<RemoteIndex> {
  const before = remoteStats.bytesFetched;
  const fromArchive = async () => {
    const remote = await readRemoteIndex(options.packageUrl, { fetch: options.fetch, signal: options.signal, adapters, stats: remoteStats });
    stats.index = { via: 'archive', bytes: remoteStats.bytesFetched - before };
    return remote;
  };
  if (!options.indexUrl || !receipt) return fromArchive();
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const common = { fetch: options.fetch, signal, adapters, stats: remoteStats };
  const fetching = fetchIndexWithDictionary(options.indexUrl, { bytes: receipt.bytes, hash: fromHex(receipt.hash) }, common);
  // Handled now (it may fail while the header is read); awaited below when needed.
  fetching.catch(() => undefined);
  const drop = () => stop.abort(new Error('the index is not needed'));
  try {
    const header = await readRemoteIndexHeader(options.packageUrl, common).catch((error: unknown) => {
      drop();
      throw error;
    });
    if (!header) {
      drop();
      return await fromArchive();
    }
    if (toHex(header.indexHash) === receipt.hash) {
      drop();
      stats.index = { via: 'receipt', bytes: remoteStats.bytesFetched - before };
      return { index: receipt.index, indexBytes: receipt.bytes, indexHash: header.indexHash, dataStart: header.dataStart, rangeSupported: true };
    }
    const fetched = await fetching;
    const remote = await remoteIndexFrom(fetched.bytes, header, { adapters });
    stats.index = { via: fetched.encoding === 'dcz' ? 'dcz' : 'index', bytes: remoteStats.bytesFetched - before };
    return remote;
  } catch {
    options.signal?.throwIfAborted();
    return fromArchive();
  }
}

function toResult(installed: InstalledPackage, stats: EngineStats, remote: RemoteStats): TransitionResult {
  stats.bytesFetched = remote.bytesFetched;
  stats.requests = remote.requests;
  return { ...installed, stats };
}

export async function transitionWorkdir(options: TransitionOptions & EngineTuning): Promise<TransitionResult> {
  const { dir, metaDir } = resolveFolders(options);
  return withLock(metaDir, async () => {
    const stats = emptyStats();
    const remoteStats: RemoteStats = { requests: 0, bytesFetched: 0 };
    const adapters = engineAdapters();
    mkdirSync(dir, { recursive: true });
    finishPendingSwap(dir, metaDir);

    const receipt = loadReceipt(metaDir);
    const remote = await readTargetIndex(options, receipt, adapters, remoteStats, stats);
    const targetHex = toHex(remote.indexHash);
    const journal = readJournal(metaDir);
    const target: LoadedIndex = { bytes: remote.indexBytes, index: remote.index, hash: targetHex };
    if (receipt?.hash === targetHex) {
      // Already installed: an interrupted transition to another package is dropped.
      if (journal) clearTransition(metaDir);
      const progress = new Progress(0, options.onProgress);
      progress.finish();
      stats.bytesReused = describeInstalled(receipt).size;
      return toResult(describeInstalled(receipt), stats, remoteStats);
    }
    const base = receipt?.hash ?? null;
    const resume = journal?.phase === 'fetch' && journal.target === targetHex && journal.base === base;
    const plan = planTransition(receipt?.index, remote.index);
    if (!resume) {
      clearTransition(metaDir);
      checkSpace(metaDir, plan.buildBytes);
    }
    // The target index first (a crashed swap is finished from it), then the journal naming it.
    writeAtomic(join(metaDir, metaNames.target), remote.indexBytes);
    if (!resume) writeJournal(metaDir, { format: 1, phase: 'fetch', target: targetHex, base });

    const progress = new Progress(plan.buildBytes, options.onProgress);
    progress.report();
    stats.bytesReused += plan.unchangedBytes;
    const tree = new SafeTree(dir);
    await buildStaging({
      stagingDir: join(metaDir, metaNames.staging),
      files: plan.build,
      resume,
      local: receipt ? { tree, sources: localSourcesOf(receipt.index, chunksOf(plan)) } : undefined,
      remote: { url: options.packageUrl, located: locateChunks(remote.index, remote.dataStart), rangeSupported: remote.rangeSupported, fetch: options.fetch },
      adapters,
      signal: options.signal,
      stats,
      remoteStats,
      progress,
      tuning: options.tuning,
    });

    // From here on the swap runs to its end (an abort no longer stops it: it is short and local).
    writeJournal(metaDir, { format: 1, phase: 'swap', target: targetHex, base });
    completeSwap(dir, metaDir, plan, target, options.afterSwapMove);
    progress.finish();
    return toResult(describeInstalled(target), stats, remoteStats);
  });
}

export async function recoverWorkdir(options: { dir: string; metaDir: string }): Promise<InstalledPackage | undefined> {
  const { dir, metaDir } = resolveFolders(options);
  return withLock(metaDir, async () => {
    finishPendingSwap(dir, metaDir);
    const receipt = loadReceipt(metaDir);
    return receipt ? describeInstalled(receipt) : undefined;
  });
}

export async function readInstalled(metaDir: string): Promise<InstalledPackage | undefined> {
  const receipt = loadReceipt(resolve(metaDir));
  return receipt ? describeInstalled(receipt) : undefined;
}

export async function repairWorkdir(options: RepairOptions & EngineTuning): Promise<RepairResult> {
  const { dir, metaDir } = resolveFolders(options);
  return withLock(metaDir, async () => {
    finishPendingSwap(dir, metaDir);
    const receipt = loadReceipt(metaDir);
    if (!receipt) throw new EngineError('not_installed', `nothing is installed in ${dir}`, { path: dir });
    mkdirSync(dir, { recursive: true });
    const stats = emptyStats();
    const remoteStats: RemoteStats = { requests: 0, bytesFetched: 0 };
    const repaired = await repairFiles({
      tree: new SafeTree(dir),
      receipt,
      stagingDir: join(metaDir, metaNames.repair),
      // The receipt gives every chunk's place in the archive: no index download is needed.
      remote: { url: options.packageUrl, located: locateChunks(receipt.index, archiveDataStart(receipt.bytes.length)), rangeSupported: true, fetch: options.fetch },
      adapters: engineAdapters(),
      signal: options.signal,
      stats,
      remoteStats,
      onProgress: options.onProgress,
      tuning: options.tuning,
    });
    stats.bytesFetched = remoteStats.bytesFetched;
    stats.requests = remoteStats.requests;
    return { ...describeInstalled(receipt), stats, repaired };
  });
}

/**
 * Uninstall: removes the package's files and links (those of the receipt, and of an interrupted
 * swap's target), then folders left empty, then the engine's files in metaDir. Files a player added
 * stay (and keep their folders); dir itself and metaDir stay for the caller to remove.
 */
export async function removeWorkdirFiles(options: { dir: string; metaDir: string }): Promise<void> {
  const { dir, metaDir } = resolveFolders(options);
  await withLock(metaDir, async () => {
    const indexes: ArchiveIndex[] = [];
    const receipt = loadReceipt(metaDir);
    if (receipt) indexes.push(receipt.index);
    const journal = readJournal(metaDir);
    if (journal?.phase === 'swap') {
      const target = loadIndexFile(join(metaDir, metaNames.target));
      if (target) indexes.push(target.index);
    }
    const tree = new SafeTree(dir);
    const folders: string[][] = [];
    for (const index of indexes) {
      for (const { entry, parts } of walkEntries(index.root)) {
        if (entry.kind === 'directory') folders.push(parts);
        else tree.removeFileOrLink(parts);
      }
    }
    folders.sort((a, b) => b.length - a.length);
    for (const parts of folders) tree.removeEmptyFolder(parts);
    clearTransition(metaDir);
    rmSync(join(metaDir, metaNames.repair), { recursive: true, force: true });
    rmSync(join(metaDir, metaNames.receipt), { force: true });
  });
}
