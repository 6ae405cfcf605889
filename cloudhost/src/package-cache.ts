import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DEFAULT_MAX_INDEX_SIZE,
  INDEX_HASH_SIZE,
  decodeIndex,
  detectAdapters,
  encodeHeader,
  equalBytes,
  listUniqueChunks,
  toHex,
  type ArchiveAdapters,
  type ArchiveChunk,
  type ArchiveIndex,
  type ArchiveReadResult,
  type ReadChunk,
} from '../../src/shared/archive/index.ts';
import { extractArchive } from '../../src/shared/archive/extract.ts';
import { StreamByteReader } from '../../src/shared/archive/byte-reader.ts';
import { describeError, redactUrl, type Logger } from './log.ts';

/**
 * The agent's package cache: chunks by hash, so the second session of a build fetches nothing and an
 * update fetches only the chunks it changed.
 *
 * The archive format makes ranged fetches straightforward: an archive is `header | index | indexHash |
 * chunk data`, where the chunk data holds every distinct chunk once, in first-reference order, each in
 * `compressedSize` bytes (docs/archive-format.md). With the index (its own small download, cached by
 * index hash) every chunk's byte range in the archive is known, and /api/files answers Range requests.
 * So the cache:
 *
 *   1. reads the index from the cache (indexes/{indexHash}) or fetches it (one GET) and checks its
 *      SHA-256 against the index hash the server gave;
 *   2. lists the distinct chunks (listUniqueChunks), their offsets in the archive, and which are not in
 *      chunks/{hh}/{hash};
 *   3. fetches the missing ones with Range requests, one per run of neighbouring missing chunks (runs
 *      joined across gaps of present chunks up to `gapBytes`, each at most `maxRangeBytes`), a few at
 *      once; each chunk is decompressed (zstd, bounded by its size), checked against its hash and
 *      stored raw (written to a temporary name, then renamed);
 *   4. extracts with the shared extractor (extractArchive: the symlink rule, names, modes) from an
 *      ArchiveReadResult whose chunks come from the cache, each checked against its hash again.
 *
 * A server that ignores Range (200) is read from the start and the wanted bytes picked out.
 * Chunks are stored raw (uncompressed), so the same content packed with or without zstd is one entry.
 * prune() drops the least recently used chunks not needed by a package in use.
 */
export type PackageLocation = { archiveUrl: string; indexUrl: string; indexHash: string | null };

export type PreparedPackage = {
  index: ArchiveIndex;
  indexHash: Uint8Array;
  indexHashHex: string;
  stats: CacheStats;
};

export type CacheStats = {
  /** The index came over the network (else from the cache). */
  indexFetched: boolean;
  rangeRequests: number;
  chunksFetched: number;
  /** Bytes received for chunks (compressed sizes, gaps included). */
  bytesFetched: number;
  chunksCached: number;
};

export type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

export type ChunkCacheOptions = {
  fetch?: Fetcher;
  adapters?: ArchiveAdapters;
  log?: Logger;
  /** Largest Range request, bytes (default 32 MiB). */
  maxRangeBytes?: number;
  /** Present chunks up to this many bytes between two missing ones are fetched again rather than split the request (default 256 KiB). */
  gapBytes?: number;
  /** Range requests at once (default 4). */
  concurrency?: number;
};

type PlannedChunk = { chunk: ArchiveChunk; hex: string; offset: number; missing: boolean };
type Run = { start: number; end: number; chunks: PlannedChunk[] };

/** SHA-256 with node:crypto (Node and Bun alike); zstd from the shared adapters (zstddec or Bun's). */
function nodeAdapters(): ArchiveAdapters {
  const base = detectAdapters();
  const digest = (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest());
  return {
    ...base,
    name: `${base.name}+node-crypto`,
    sha256: digest,
    createSha256() {
      const hash = createHash('sha256');
      return {
        update: (data) => void hash.update(data),
        digest: () => new Uint8Array(hash.digest()),
      };
    },
  };
}

/** Runs of missing chunks, in archive order, each one Range request. */
export function planRuns(chunks: readonly PlannedChunk[], maxRangeBytes: number, gapBytes: number): Run[] {
  const runs: Run[] = [];
  let current: Run | undefined;
  let pending: PlannedChunk[] = [];
  for (const planned of chunks) {
    const end = planned.offset + planned.chunk.compressedSize;
    if (!planned.missing) {
      if (current) pending.push(planned);
      continue;
    }
    const gap = current ? planned.offset - current.end : 0;
    if (current && gap <= gapBytes && end - current.start <= maxRangeBytes) {
      current.chunks.push(...pending, planned);
      current.end = end;
    } else {
      current = { start: planned.offset, end, chunks: [planned] };
      runs.push(current);
    }
    pending = [];
  }
  return runs;
}

async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  if (failure !== undefined) throw failure;
}

export class ChunkCache {
  private readonly fetch: Fetcher;
  private readonly adapters: ArchiveAdapters;
  private readonly log: Logger | undefined;
  private readonly maxRangeBytes: number;
  private readonly gapBytes: number;
  private readonly concurrency: number;
  /** One preparation per index hash at a time: two sessions of one build share the fetches. */
  private readonly preparing = new Map<string, Promise<PreparedPackage>>();
  /** Index hashes of packages in use (prune keeps their chunks). */
  private readonly inUse = new Map<string, number>();

  constructor(
    readonly dir: string,
    options: ChunkCacheOptions = {},
  ) {
    this.fetch = options.fetch ?? ((url, init) => fetch(url, init));
    this.adapters = options.adapters ?? nodeAdapters();
    this.log = options.log;
    this.maxRangeBytes = options.maxRangeBytes ?? 32 * 1024 * 1024;
    this.gapBytes = options.gapBytes ?? 256 * 1024;
    this.concurrency = options.concurrency ?? 4;
  }

  private chunkPath(hex: string): string {
    return join(this.dir, 'chunks', hex.slice(0, 2), hex);
  }

  private indexPath(hex: string): string {
    return join(this.dir, 'indexes', `${hex}.index`);
  }

  private async hasChunk(hex: string): Promise<boolean> {
    try {
      return (await stat(this.chunkPath(hex))).isFile();
    } catch {
      return false;
    }
  }

  /** Stores bytes under `path` atomically (a reader never sees half a file). */
  private async storeFile(path: string, bytes: Uint8Array): Promise<void> {
    await mkdir(join(path, '..'), { recursive: true });
    const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, path);
  }

  private async readIndex(location: PackageLocation, stats: CacheStats, signal?: AbortSignal): Promise<{ bytes: Uint8Array; hash: Uint8Array }> {
    const expected = location.indexHash?.toLowerCase();
    if (expected !== undefined && !/^[0-9a-f]{64}$/.test(expected)) throw new Error('the package index hash is not 64 hex digits');
    if (expected !== undefined) {
      try {
        const bytes = new Uint8Array(await readFile(this.indexPath(expected)));
        const hash = await this.adapters.sha256(bytes);
        if (toHex(hash) === expected) return { bytes, hash };
        await rm(this.indexPath(expected), { force: true });
      } catch {
        // Not cached yet.
      }
    }
    const response = await this.fetch(location.indexUrl, { signal });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`fetching the package index (${redactUrl(location.indexUrl)}) answered ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > DEFAULT_MAX_INDEX_SIZE) throw new Error(`the package index is ${declared} bytes`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    stats.indexFetched = true;
    const hash = await this.adapters.sha256(bytes);
    const hex = toHex(hash);
    if (expected !== undefined && hex !== expected) throw new Error('the package index does not match its hash');
    await this.storeFile(this.indexPath(hex), bytes);
    return { bytes, hash };
  }

  /** Fetches one run with a Range request and stores its missing chunks. */
  private async fetchRun(archiveUrl: string, run: Run, stats: CacheStats, signal?: AbortSignal): Promise<void> {
    const response = await this.fetch(archiveUrl, { headers: { range: `bytes=${run.start}-${run.end - 1}` }, signal });
    stats.rangeRequests += 1;
    let position: number;
    if (response.status === 206) {
      const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
      if (!range || Number(range[1]) !== run.start || Number(range[2]) !== run.end - 1) {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`the archive answered another range (${response.headers.get('content-range')})`);
      }
      position = run.start;
    } else if (response.status === 200) {
      position = 0;
    } else {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`fetching package chunks (${redactUrl(archiveUrl)}) answered ${response.status}`);
    }
    if (response.body === null) throw new Error('the archive answered without a body');
    const reader = new StreamByteReader(response.body);
    try {
      for (const planned of run.chunks) {
        // Skip what lies before the chunk (only a 200 reply starts before the run).
        while (position < planned.offset) {
          const skip = Math.min(planned.offset - position, 1024 * 1024);
          await reader.read(skip);
          position += skip;
        }
        const stored = await reader.read(planned.chunk.compressedSize);
        position += stored.length;
        stats.bytesFetched += stored.length;
        if (!planned.missing || (await this.hasChunk(planned.hex))) continue;
        const bytes =
          planned.chunk.compressedSize === planned.chunk.size ? stored : await this.adapters.zstdDecompress(stored, planned.chunk.size);
        if (bytes.length !== planned.chunk.size || !equalBytes(await this.adapters.sha256(bytes), planned.chunk.hash)) {
          throw new Error(`chunk ${planned.hex.slice(0, 12)}… does not match its hash`);
        }
        await this.storeFile(this.chunkPath(planned.hex), bytes);
        stats.chunksFetched += 1;
      }
    } finally {
      await reader.cancel();
    }
  }

  private async prepareOnce(location: PackageLocation, signal?: AbortSignal): Promise<PreparedPackage> {
    const stats: CacheStats = { indexFetched: false, rangeRequests: 0, chunksFetched: 0, bytesFetched: 0, chunksCached: 0 };
    const { bytes: indexBytes, hash: indexHash } = await this.readIndex(location, stats, signal);
    const index = decodeIndex(indexBytes);
    let offset = encodeHeader(false, indexBytes.length).length + indexBytes.length + INDEX_HASH_SIZE;
    const planned: PlannedChunk[] = [];
    for (const chunk of listUniqueChunks(index)) {
      const hex = toHex(chunk.hash);
      const missing = !(await this.hasChunk(hex));
      if (!missing) stats.chunksCached += 1;
      planned.push({ chunk, hex, offset, missing });
      offset += chunk.compressedSize;
    }
    const runs = planRuns(planned, this.maxRangeBytes, this.gapBytes);
    await pool(runs, this.concurrency, (run) => this.fetchRun(location.archiveUrl, run, stats, signal));
    return { index, indexHash, indexHashHex: toHex(indexHash), stats };
  }

  /** Makes every chunk of the package local; resolves with its index. */
  async prepare(location: PackageLocation, signal?: AbortSignal): Promise<PreparedPackage> {
    const key = location.indexHash?.toLowerCase() ?? location.indexUrl;
    const running = this.preparing.get(key);
    if (running) {
      const prepared = await running;
      return { ...prepared, stats: { indexFetched: false, rangeRequests: 0, chunksFetched: 0, bytesFetched: 0, chunksCached: prepared.stats.chunksCached + prepared.stats.chunksFetched } };
    }
    const promise = this.prepareOnce(location, signal);
    this.preparing.set(key, promise);
    try {
      const prepared = await promise;
      this.log?.debug(
        `package ${prepared.indexHashHex.slice(0, 12)}…: ${prepared.stats.chunksCached} chunks cached, ${prepared.stats.chunksFetched} fetched in ${prepared.stats.rangeRequests} requests (${prepared.stats.bytesFetched} bytes)`,
      );
      return prepared;
    } catch (error) {
      throw new Error(`package download failed: ${describeError(error)}`);
    } finally {
      this.preparing.delete(key);
    }
  }

  /** An ArchiveReadResult whose chunks come from the cache, each checked against its hash. */
  private readResult(prepared: PreparedPackage): ArchiveReadResult {
    const adapters = this.adapters;
    const chunkPath = (hex: string) => this.chunkPath(hex);
    const unique = listUniqueChunks(prepared.index);
    return {
      index: prepared.index,
      indexHash: prepared.indexHash,
      async *chunks(): AsyncGenerator<ReadChunk> {
        for (let ordinal = 0; ordinal < unique.length; ordinal++) {
          const chunk = unique[ordinal]!;
          const path = chunkPath(toHex(chunk.hash));
          const bytes = new Uint8Array(await readFile(path));
          if (bytes.length !== chunk.size || !equalBytes(await adapters.sha256(bytes), chunk.hash)) {
            await rm(path, { force: true });
            throw new Error(`cached chunk ${toHex(chunk.hash).slice(0, 12)}… is damaged (removed; the next session fetches it again)`);
          }
          const now = new Date();
          await utimes(path, now, now).catch(() => undefined);
          yield { ordinal, hash: chunk.hash, size: chunk.size, compressedSize: chunk.size, bytes, storedBytes: bytes, fromBase: false };
        }
      },
      cancel: async () => undefined,
    };
  }

  /** Writes the package's files into `targetDir` (which must be empty or absent) with the shared extractor. */
  async extract(prepared: PreparedPackage, targetDir: string): Promise<void> {
    await extractArchive(this.readResult(prepared), targetDir);
  }

  /** Marks a package in use (prune keeps its chunks) until the returned function is called. */
  hold(prepared: PreparedPackage): () => void {
    const key = prepared.indexHashHex;
    this.inUse.set(key, (this.inUse.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const count = (this.inUse.get(key) ?? 1) - 1;
      if (count <= 0) this.inUse.delete(key);
      else this.inUse.set(key, count);
    };
  }

  /** Removes least recently used chunks (and indexes) until the cache holds at most `maxBytes`, keeping packages in use. */
  async prune(maxBytes: number): Promise<{ removed: number; bytes: number }> {
    const keep = new Set<string>();
    for (const hex of this.inUse.keys()) {
      try {
        const index = decodeIndex(new Uint8Array(await readFile(this.indexPath(hex))));
        for (const chunk of listUniqueChunks(index)) keep.add(toHex(chunk.hash));
      } catch {
        // An index that cannot be read keeps nothing.
      }
    }
    const entries: { path: string; size: number; used: number; hex: string }[] = [];
    let total = 0;
    const chunksDir = join(this.dir, 'chunks');
    for (const prefix of await readdir(chunksDir).catch(() => [] as string[])) {
      for (const name of await readdir(join(chunksDir, prefix)).catch(() => [] as string[])) {
        const path = join(chunksDir, prefix, name);
        const info = await stat(path).catch(() => undefined);
        if (!info?.isFile()) continue;
        total += info.size;
        entries.push({ path, size: info.size, used: info.mtimeMs, hex: name });
      }
    }
    let removed = 0;
    let freed = 0;
    entries.sort((a, b) => a.used - b.used);
    for (const entry of entries) {
      if (total <= maxBytes) break;
      if (keep.has(entry.hex)) continue;
      await rm(entry.path, { force: true });
      total -= entry.size;
      freed += entry.size;
      removed += 1;
    }
    return { removed, bytes: freed };
  }

  /** Total bytes of cached chunks (tests, logs). */
  async size(): Promise<number> {
    let total = 0;
    const chunksDir = join(this.dir, 'chunks');
    for (const prefix of await readdir(chunksDir).catch(() => [] as string[])) {
      for (const name of await readdir(join(chunksDir, prefix)).catch(() => [] as string[])) {
        const info = await stat(join(chunksDir, prefix, name)).catch(() => undefined);
        if (info?.isFile()) total += info.size;
      }
    }
    return total;
  }
}

/** Creates the cache's folders (and checks the work dir is writable). */
export async function openChunkCache(dir: string, options: ChunkCacheOptions = {}): Promise<ChunkCache> {
  await mkdir(join(dir, 'chunks'), { recursive: true, mode: 0o700 });
  await mkdir(join(dir, 'indexes'), { recursive: true, mode: 0o700 });
  const probe = join(dir, `.probe-${process.pid}`);
  const handle = await open(probe, 'w');
  await handle.close();
  await rm(probe, { force: true });
  return new ChunkCache(dir, options);
}
