import { appendFileSync, closeSync, constants, fchmodSync, ftruncateSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  ArchiveError,
  DEFAULT_RUN_OPTIONS,
  MAX_CHUNK_SIZE,
  fetchRuns,
  planRuns,
  toHex,
  type ArchiveAdapters,
  type ArchiveChunk,
  type LocatedChunk,
  type RemoteStats,
} from '../../shared/archive/index.ts';
import { PlacementWriter } from '../../shared/archive/placement-writer.ts';
import type { EngineStats, Fetcher } from './types.ts';
import type { BuildFile } from './plan.ts';
import type { Progress } from './progress.ts';
import type { SafeTree } from './safe-tree.ts';
import { sameHash, sha256 } from './hashing.ts';
import { metaNames } from './meta.ts';

/** Where a chunk may already be on disk: a file of the workdir (read through SafeTree, verified by hash). */
export type LocalSource = { parts: string[]; offset: number };

export type FetchTuning = {
  /** Largest Range request (default 32 MiB). */
  maxRangeBytes: number;
  /** Unneeded chunks up to this many bytes between two needed ones are fetched rather than split a request (default 64 KiB). */
  gapBytes: number;
  /** Range requests at once (default 4). */
  concurrency: number;
};

const defaultTuning: FetchTuning = { maxRangeBytes: DEFAULT_RUN_OPTIONS.maxRangeBytes, gapBytes: 64 * 1024, concurrency: DEFAULT_RUN_OPTIONS.concurrency };

export type BuildInput = {
  stagingDir: string;
  files: readonly BuildFile[];
  /** Keep what an earlier call staged (its chunk log), re-verifying each kept chunk. */
  resume: boolean;
  local?: { tree: SafeTree; sources: Map<string, LocalSource[]> };
  remote?: { url: string; located: readonly LocatedChunk[]; rangeSupported: boolean; fetch?: Fetcher };
  adapters: ArchiveAdapters;
  signal?: AbortSignal;
  stats: EngineStats;
  remoteStats: RemoteStats;
  progress: Progress;
  tuning?: Partial<FetchTuning>;
};

type Place = { path: string; offset: number; staging: string };
type Need = { chunk: ArchiveChunk; hex: string; places: Place[]; done: boolean };

/** Log entries are appended in batches: a crash loses at most one batch of progress (fetched again). */
const LOG_BATCH_ENTRIES = 64;
const LOG_BATCH_BYTES = 1024 * 1024;

/** The resume log: 32-byte chunk hashes appended after the chunk was written at all its staging places. */
class ChunkLog {
  private readonly pending = new Uint8Array(LOG_BATCH_ENTRIES * 32);
  private count = 0;
  private bytes = 0;

  constructor(private readonly path: string) {}

  read(): Set<string> {
    const logged = new Set<string>();
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(readFileSync(this.path));
    } catch {
      return logged;
    }
    // A torn last record (a crash inside the append) is ignored.
    for (let at = 0; at + 32 <= bytes.length; at += 32) logged.add(toHex(bytes.subarray(at, at + 32)));
    return logged;
  }

  add(hash: Uint8Array, bytes: number): void {
    this.pending.set(hash, this.count * 32);
    this.count += 1;
    this.bytes += bytes;
    if (this.count === LOG_BATCH_ENTRIES || this.bytes >= LOG_BATCH_BYTES) this.flush();
  }

  flush(): void {
    if (this.count === 0) return;
    appendFileSync(this.path, this.pending.subarray(0, this.count * 32));
    this.count = 0;
    this.bytes = 0;
  }
}

/** Read descriptors of workdir files (local chunk sources), a few kept open. */
class SourceReader {
  private readonly open = new Map<string, number | null>();

  constructor(private readonly tree: SafeTree) {}

  private fd(parts: string[]): number | null {
    const key = parts.join('/');
    const known = this.open.get(key);
    if (known !== undefined) return known;
    if (this.open.size >= 16) {
      const [oldestKey, oldest] = this.open.entries().next().value!;
      this.open.delete(oldestKey);
      if (oldest !== null) closeSync(oldest);
    }
    const opened = this.tree.openRead(parts);
    this.open.set(key, opened?.fd ?? null);
    return opened?.fd ?? null;
  }

  /** `size` bytes at `offset` into `buffer`, or false when the file is gone or too short. */
  read(source: LocalSource, buffer: Uint8Array, size: number): boolean {
    const fd = this.fd(source.parts);
    if (fd === null) return false;
    try {
      return readFully(fd, buffer, size, source.offset);
    } catch {
      return false;
    }
  }

  closeAll(): void {
    for (const fd of this.open.values()) if (fd !== null) closeSync(fd);
    this.open.clear();
  }
}

function readFully(fd: number, buffer: Uint8Array, size: number, position: number): boolean {
  let read = 0;
  while (read < size) {
    const count = readSync(fd, buffer, read, size - read, position + read);
    if (count === 0) return false;
    read += count;
  }
  return true;
}

/** Creates (or, resuming, keeps) the staging files at their final size and mode. Returns the names made anew. */
function prepareFiles(input: BuildInput): Set<string> {
  mkdirSync(input.stagingDir, { recursive: true, mode: 0o700 });
  const fresh = new Set<string>();
  for (const file of input.files) {
    const path = join(input.stagingDir, file.staging);
    if (input.resume) {
      try {
        const stats = lstatSync(path);
        if (stats.isFile() && stats.size === file.file.size) continue;
      } catch {
        // Not staged yet.
      }
      rmSync(path, { force: true, recursive: true });
    }
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, file.mode);
    try {
      fchmodSync(fd, file.mode);
      if (file.file.size > 0) ftruncateSync(fd, file.file.size);
    } finally {
      closeSync(fd);
    }
    fresh.add(file.staging);
  }
  return fresh;
}

/**
 * Fills the staging folder with the files to build: each distinct chunk is taken, in this order, from
 * what an earlier call already staged (resume: its log, each chunk read back and verified), from the
 * workdir's current files (a chunk of the installed version, any file: read and verified), or from the
 * archive (Range requests for runs of the rest: src/shared/archive/remote/). A chunk is written at every
 * place the files to build use it, then logged. Resume is chunk-level.
 */
export async function buildStaging(input: BuildInput): Promise<void> {
  const { stats, progress, signal } = input;
  if (!input.resume) rmSync(input.stagingDir, { recursive: true, force: true });
  const fresh = prepareFiles(input);
  const log = new ChunkLog(join(input.stagingDir, metaNames.log));

  // Every distinct chunk the files to build need, with every place it goes.
  const needs = new Map<string, Need>();
  for (const file of input.files) {
    const path = join(input.stagingDir, file.staging);
    let offset = 0;
    for (const chunk of file.file.chunks ?? []) {
      const hex = toHex(chunk.hash);
      let need = needs.get(hex);
      if (need === undefined) needs.set(hex, (need = { chunk, hex, places: [], done: false }));
      need.places.push({ path, offset, staging: file.staging });
      offset += chunk.size;
    }
  }

  const writer = new PlacementWriter({ maxOpenFiles: 32 });
  const buffer = new Uint8Array(MAX_CHUNK_SIZE);
  let remaining = needs.size;
  const placeAll = (need: Need, bytes: Uint8Array) => {
    for (const place of need.places) writer.write(place.path, place.offset, bytes);
    const written = bytes.length * need.places.length;
    stats.bytesWritten += written;
    need.done = true;
    remaining -= 1;
    log.add(need.chunk.hash, written);
    progress.add(written);
  };
  const sources = input.local ? new SourceReader(input.local.tree) : undefined;

  try {
    // 1. Resume: chunks an earlier call staged, read back from their first place and verified.
    if (input.resume) {
      const staged = new Map<string, number>();
      for (const hex of log.read()) {
        const need = needs.get(hex);
        if (!need || need.done || need.places.some((place) => fresh.has(place.staging))) continue;
        const place = need.places[0]!;
        let fd = staged.get(place.path);
        if (fd === undefined) staged.set(place.path, (fd = openSync(place.path, 'r')));
        const size = need.chunk.size;
        if (!readFully(fd, buffer, size, place.offset) || !sameHash(sha256(buffer.subarray(0, size)), need.chunk.hash)) continue;
        need.done = true;
        remaining -= 1;
        const kept = size * need.places.length;
        stats.bytesReused += kept;
        progress.add(kept);
      }
      for (const fd of staged.values()) closeSync(fd);
    }

    // 2. Chunks of the installed version, from the workdir's files.
    if (input.local && sources) {
      for (const need of needs.values()) {
        if (need.done) continue;
        const candidates = input.local.sources.get(need.hex);
        if (!candidates) continue;
        signal?.throwIfAborted();
        const size = need.chunk.size;
        for (const source of candidates) {
          if (!sources.read(source, buffer, size)) continue;
          const bytes = buffer.subarray(0, size);
          if (!sameHash(sha256(bytes), need.chunk.hash)) continue;
          stats.bytesReused += size * need.places.length;
          placeAll(need, bytes);
          break;
        }
      }
    }

    // 3. The rest from the archive, by runs of Range requests.
    if (remaining > 0) {
      if (!input.remote) throw new ArchiveError('missing_chunk', `${remaining} chunks are neither on disk nor fetchable`);
      const tuning = { ...defaultTuning, ...input.tuning };
      const planned = input.remote.located.map((located) => ({ ...located, missing: needs.get(located.hex)?.done === false }));
      const whole = !input.remote.rangeSupported;
      // A server that ignores Range sends whole archives: then one pass over it.
      const runs = planRuns(planned, whole ? Infinity : tuning.maxRangeBytes, whole ? Infinity : tuning.gapBytes);
      await fetchRuns(input.remote.url, runs, {
        fetch: input.remote.fetch,
        signal,
        adapters: input.adapters,
        stats: input.remoteStats,
        concurrency: whole ? 1 : tuning.concurrency,
        onChunk: (located, bytes) => {
          const need = needs.get(located.hex);
          if (need && !need.done) placeAll(need, bytes);
        },
      });
    }
    if (remaining > 0) throw new ArchiveError('missing_chunk', `${remaining} chunks were not provided by the archive`);
  } finally {
    // Only chunks whose writes completed were added: the log never claims more than staging holds.
    try {
      log.flush();
    } finally {
      writer.closeAll();
      sources?.closeAll();
    }
  }
}
