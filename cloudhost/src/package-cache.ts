import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  archiveDataStart,
  decodeIndex,
  detectAdapters,
  equalBytes,
  fetchIndexFile,
  fetchRuns,
  listUniqueChunks,
  locateChunks,
  planRuns,
  toHex,
  type ArchiveAdapters,
  type ArchiveIndex,
  type ArchiveReadResult,
  type LocatedChunk,
  type ReadChunk,
  type RemoteStats,
} from '../../src/shared/archive/index.ts';
import { extractArchive } from '../../src/shared/archive/extract.ts';
import { describeError, type Logger } from './log.ts';

/**
 * The agent's package cache: chunks by hash, so the second session of a build fetches nothing and an
 * update fetches only the chunks it changed.
 *
 * The archive format makes ranged fetches straightforward: an archive is `header | index | indexHash |
 * chunk data`, where the chunk data holds every distinct chunk once, in first-reference order, each in
 * `compressedSize` bytes (docs/archive-format.md). With the index (its own small download, cached by
 * index hash) every chunk's byte range in the archive is known, and /api/files answers Range requests.
 * Locating, planning and fetching runs is the shared src/shared/archive/remote/ (the companion app's
 * updates use the same code). So the cache:
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

type PlannedChunk = LocatedChunk & { missing: boolean };

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

/** Runs of missing chunks, in archive order, each one Range request (the shared planner). */
export { planRuns };

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
    const remote: RemoteStats = { requests: 0, bytesFetched: 0 };
    const { bytes, hash } = await fetchIndexFile(location.indexUrl, { fetch: this.fetch, signal, adapters: this.adapters, stats: remote, expectedHash: expected });
    stats.indexFetched = true;
    const hex = toHex(hash);
    await this.storeFile(this.indexPath(hex), bytes);
    return { bytes, hash };
  }

  private async prepareOnce(location: PackageLocation, signal?: AbortSignal): Promise<PreparedPackage> {
    const stats: CacheStats = { indexFetched: false, rangeRequests: 0, chunksFetched: 0, bytesFetched: 0, chunksCached: 0 };
    const { bytes: indexBytes, hash: indexHash } = await this.readIndex(location, stats, signal);
    const index = decodeIndex(indexBytes);
    const planned: PlannedChunk[] = [];
    for (const located of locateChunks(index, archiveDataStart(indexBytes.length))) {
      const missing = !(await this.hasChunk(located.hex));
      if (!missing) stats.chunksCached += 1;
      planned.push({ ...located, missing });
    }
    const remote: RemoteStats = { requests: 0, bytesFetched: 0 };
    try {
      await fetchRuns(location.archiveUrl, planRuns(planned, this.maxRangeBytes, this.gapBytes), {
        fetch: this.fetch,
        signal,
        adapters: this.adapters,
        stats: remote,
        concurrency: this.concurrency,
        onChunk: async (chunk, bytes) => {
          // Another session of the same cache may have stored it meanwhile.
          if (await this.hasChunk(chunk.hex)) return;
          await this.storeFile(this.chunkPath(chunk.hex), bytes);
          stats.chunksFetched += 1;
        },
      });
    } finally {
      stats.rangeRequests += remote.requests;
      stats.bytesFetched += remote.bytesFetched;
    }
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

  /**
   * An ArchiveReadResult whose chunks come from the cache, each checked against its hash. Files are
   * read a few ahead of the one being written (each read is a round trip through the thread pool),
   * and the chunks are marked used (their times, for prune) once all are read, off the way.
   */
  private readResult(prepared: PreparedPackage): ArchiveReadResult {
    const adapters = this.adapters;
    const chunkPath = (hex: string) => this.chunkPath(hex);
    const unique = listUniqueChunks(prepared.index);
    const readAhead = 8;
    return {
      index: prepared.index,
      indexHash: prepared.indexHash,
      async *chunks(): AsyncGenerator<ReadChunk> {
        const paths = unique.map((chunk) => chunkPath(toHex(chunk.hash)));
        const reads: Promise<Uint8Array>[] = [];
        const readAt = (ordinal: number) => {
          const read = readFile(paths[ordinal]!).then((buffer) => new Uint8Array(buffer));
          // Awaited in order below; a failure read ahead must not count as unhandled meanwhile.
          read.catch(() => undefined);
          reads[ordinal] = read;
        };
        for (let ordinal = 0; ordinal < Math.min(readAhead, unique.length); ordinal++) readAt(ordinal);
        for (let ordinal = 0; ordinal < unique.length; ordinal++) {
          if (ordinal + readAhead < unique.length) readAt(ordinal + readAhead);
          const chunk = unique[ordinal]!;
          const bytes = await reads[ordinal]!;
          delete reads[ordinal];
          if (bytes.length !== chunk.size || !equalBytes(await adapters.sha256(bytes), chunk.hash)) {
            await rm(paths[ordinal]!, { force: true });
            throw new Error(`cached chunk ${toHex(chunk.hash).slice(0, 12)}… is damaged (removed; the next session fetches it again)`);
          }
          yield { ordinal, hash: chunk.hash, size: chunk.size, compressedSize: chunk.size, bytes, storedBytes: bytes, fromBase: false };
        }
        void touchAll(paths);
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

/** Marks files used now (prune drops the least recently used), a few at a time; failures do not matter. */
async function touchAll(paths: readonly string[]): Promise<void> {
  const now = new Date();
  let next = 0;
  const worker = async () => {
    while (next < paths.length) await utimes(paths[next++]!, now, now).catch(() => undefined);
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}
