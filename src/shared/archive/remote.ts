import { ArchiveError, toArchiveError } from './errors.ts';
import { detectAdapters, type ArchiveAdapters } from './adapters.ts';
import { concatBytes, equalBytes, toHex } from './bytes.ts';
import { listUniqueChunks } from './chunks.ts';
import { ARCHIVE_MAGIC, DEFAULT_MAX_INDEX_SIZE, FLAG_PATCH, INDEX_HASH_SIZE } from './constants.ts';
import { encodeHeader } from './format.ts';
import { decodeIndex } from './index-decode.ts';
import { checkSymlinks } from './symlink-check.ts';
import type { ArchiveChunk, ArchiveIndex } from './types.ts';
import { decodeVarint } from './varint.ts';

/**
 * An archive read over HTTP by byte ranges (the companion app's updates, the cloud-play agent's chunk
 * cache). The layout is `magic flags indexSize index indexHash chunkData` and the chunk data holds every
 * distinct chunk once, in first-reference order, each in its `compressedSize` bytes; so once the index
 * is known, every chunk's byte range in the archive is too (locateChunks), and only the wanted ones need
 * fetching: runs of neighbouring wanted chunks, one Range request each (planRuns), joined across short
 * stretches of unwanted chunks, each run bounded in size, a few at once (fetchRuns). Every fetched chunk
 * is decompressed (zstd, output bounded by its declared size) and checked against its hash before the
 * caller sees it.
 *
 * A server that ignores Range answers 200 with the whole archive: it is read from the start and the
 * wanted bytes picked out (readRemoteIndex reports `rangeSupported: false`, and callers then plan one
 * run). Web-standard APIs only (fetch, streams; hashing and zstd through the archive adapters), so Node,
 * Bun and browsers can all use it.
 */
export type RemoteFetch = (url: string, init?: RequestInit) => Promise<Response>;

/** What went over the network; callers pass one object and read it afterwards. */
export type RemoteStats = {
  /** HTTP requests made. */
  requests: number;
  /** Body bytes received (index and chunk data, gaps included). */
  bytesFetched: number;
};

export type RemoteOptions = {
  fetch?: RemoteFetch;
  signal?: AbortSignal;
  adapters?: ArchiveAdapters;
  stats?: RemoteStats;
};

export type RemoteIndex = {
  index: ArchiveIndex;
  /** The encoded index (what the archive and `.crt-index` downloads hold). */
  indexBytes: Uint8Array;
  indexHash: Uint8Array;
  /** Byte offset of the chunk data in the archive. */
  dataStart: number;
  /** False when the server answered 200 to a Range request (it sends whole bodies). */
  rangeSupported: boolean;
};

/** One distinct chunk and where its stored bytes lie in the archive. */
export type LocatedChunk = {
  /** Position among the distinct chunks (first-reference order). */
  ordinal: number;
  chunk: ArchiveChunk;
  hex: string;
  /** Byte offset of its stored bytes in the archive. */
  offset: number;
};

/** What planRuns needs of a chunk; callers extend it with their own fields. */
export type PlannedChunk = { chunk: ArchiveChunk; offset: number; missing: boolean };

/** One Range request: bytes start..end (end exclusive) covering `chunks` (missing ones and the gaps between them). */
export type Run<T extends PlannedChunk = PlannedChunk> = { start: number; end: number; chunks: T[] };

export type RunOptions<T extends PlannedChunk> = RemoteOptions & {
  /**
   * Receives each missing chunk of a run once its raw bytes are verified (gap chunks are skipped). The
   * bytes may be a view into the response's buffer: copy them to keep them past the call.
   */
  onChunk(planned: T, bytes: Uint8Array): void | Promise<void>;
};

export const DEFAULT_RUN_OPTIONS = {
  /** Largest Range request. */
  maxRangeBytes: 32 * 1024 * 1024,
  /** Unwanted chunks up to this many bytes between two wanted ones are fetched rather than split the request. */
  gapBytes: 256 * 1024,
  /** Range requests at once. */
  concurrency: 4,
};

/** How many bytes the first index request asks for; the rest of a larger index comes in a second one. */
const FIRST_INDEX_BYTES = 64 * 1024;

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => value instanceof Promise;

/** Offset of the chunk data in an archive whose (non-patch) index is `indexSize` bytes. */
export function archiveDataStart(indexSize: number): number {
  return encodeHeader(false, indexSize).length + indexSize + INDEX_HASH_SIZE;
}

/** Every distinct chunk of the index with its offset in the archive (data starting at `dataStart`). */
export function locateChunks(index: ArchiveIndex, dataStart: number): LocatedChunk[] {
  const located: LocatedChunk[] = [];
  let offset = dataStart;
  let ordinal = 0;
  for (const chunk of listUniqueChunks(index)) {
    located.push({ ordinal: ordinal++, chunk, hex: toHex(chunk.hash), offset });
    offset += chunk.compressedSize;
  }
  return located;
}

/** Runs of missing chunks, in archive order, each one Range request of at most `maxRangeBytes` (a lone chunk may exceed it). */
export function planRuns<T extends PlannedChunk>(chunks: readonly T[], maxRangeBytes: number, gapBytes: number): Run<T>[] {
  const runs: Run<T>[] = [];
  let current: Run<T> | undefined;
  let pending: T[] = [];
  for (const planned of chunks) {
    const end = planned.offset + planned.chunk.compressedSize;
    if (!planned.missing) {
      if (current) pending.push(planned);
      continue;
    }
    const gap = current ? planned.offset - current.end : 0;
    if (current && gap <= gapBytes && end - current.start <= maxRangeBytes) {
      for (const item of pending) current.chunks.push(item);
      current.chunks.push(planned);
      current.end = end;
    } else {
      current = { start: planned.offset, end, chunks: [planned] };
      runs.push(current);
    }
    pending = [];
  }
  return runs;
}

function fetchFailed(url: string, status: number, cause?: unknown): ArchiveError {
  return new ArchiveError('archive_fetch_failed', `fetching ${redactUrl(url)} ${status === 0 ? 'failed' : `answered ${status}`}`, {
    status,
    cause,
  });
}

/** A URL without its query and with a signed path's last segments shortened (for messages and logs). */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.split('/').slice(0, 4).join('/')}/…`;
  } catch {
    return '(invalid URL)';
  }
}

async function request(url: string, range: string | undefined, options: RemoteOptions): Promise<Response> {
  const fetcher = options.fetch ?? ((input: string, init?: RequestInit) => fetch(input, init));
  options.signal?.throwIfAborted();
  let response: Response;
  try {
    response = await fetcher(url, { headers: range === undefined ? {} : { range }, signal: options.signal });
  } catch (error) {
    options.signal?.throwIfAborted();
    throw fetchFailed(url, 0, error);
  }
  if (options.stats) options.stats.requests += 1;
  if (response.status !== 200 && response.status !== 206) {
    await response.body?.cancel().catch(() => undefined);
    throw fetchFailed(url, response.status);
  }
  if (response.body === null) throw new ArchiveError('archive_ended', 'the archive answered without a body');
  return response;
}

/**
 * Checks a 206 reply names the bytes asked for (or fewer, when the archive ends before `end`); returns
 * the archive's total size when the reply gives it.
 */
async function checkContentRange(response: Response, start: number, end: number): Promise<number | undefined> {
  const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
  const first = Number(match?.[1]);
  const last = Number(match?.[2]);
  const total = match?.[3] === '*' ? undefined : Number(match?.[3]);
  const exact = match !== null && first === start && last === end - 1;
  const endsEarly = match !== null && first === start && last < end - 1 && total !== undefined && last === total - 1;
  if (!exact && !endsEarly) {
    await response.body?.cancel().catch(() => undefined);
    throw new ArchiveError('archive_fetch_failed', `the archive answered another range (${response.headers.get('content-range')}) for ${start}-${end - 1}`, {
      status: 206,
    });
  }
  return total;
}

/**
 * A response body read in exact lengths, synchronously while the received piece holds them: the hot
 * loop awaits only when it needs the next piece, not once per chunk.
 */
export class BodyReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private piece: Uint8Array = new Uint8Array(0);
  private offset = 0;
  private done = false;

  constructor(
    stream: ReadableStream<Uint8Array>,
    private readonly stats?: RemoteStats,
    private readonly signal?: AbortSignal,
  ) {
    this.reader = stream.getReader();
  }

  get buffered(): number {
    return this.piece.length - this.offset;
  }

  /** Pulls the next piece; false at the end of the body. */
  private async pull(): Promise<boolean> {
    if (this.done) return false;
    let result: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;
    try {
      result = await this.reader.read();
    } catch (error) {
      this.signal?.throwIfAborted();
      throw new ArchiveError('archive_ended', 'the archive download failed', { cause: error });
    }
    if (result.done) {
      this.done = true;
      return false;
    }
    this.signal?.throwIfAborted();
    if (this.stats) this.stats.bytesFetched += result.value.length;
    this.piece = result.value;
    this.offset = 0;
    return true;
  }

  /** `length` bytes if the current piece holds them all (a view, no copy), else undefined. */
  takeSync(length: number): Uint8Array | undefined {
    if (this.piece.length - this.offset < length) return undefined;
    const out = this.piece.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  /** Exactly `length` bytes (copied together when they span pieces); archive_ended when the body ends first. */
  async take(length: number): Promise<Uint8Array> {
    const direct = this.takeSync(length);
    if (direct !== undefined) return direct;
    // A declared length is only a claim: gather what really arrives before allocating the whole.
    const parts: Uint8Array[] = [];
    let filled = 0;
    while (filled < length) {
      if (this.piece.length === this.offset && !(await this.pull())) {
        throw new ArchiveError('archive_ended', `the archive ended ${length - filled} bytes early`);
      }
      const count = Math.min(length - filled, this.piece.length - this.offset);
      parts.push(this.piece.subarray(this.offset, this.offset + count));
      this.offset += count;
      filled += count;
    }
    return parts.length === 1 ? parts[0]! : concatBytes(parts, length);
  }

  /** The rest of the body (at most `limit` bytes, else invalid_option), copied into one array. */
  async readAll(limit: number): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      if (this.piece.length === this.offset && !(await this.pull())) break;
      const part = this.piece.subarray(this.offset);
      this.offset = this.piece.length;
      size += part.length;
      if (size > limit) throw new ArchiveError('invalid_option', `the body is above ${limit} bytes`);
      parts.push(part);
    }
    return concatBytes(parts, size);
  }

  /** Skips `length` bytes without keeping them. */
  async skip(length: number): Promise<void> {
    let left = length;
    while (left > 0) {
      if (this.piece.length === this.offset && !(await this.pull())) {
        throw new ArchiveError('archive_ended', `the archive ended ${left} bytes early`);
      }
      const count = Math.min(left, this.piece.length - this.offset);
      this.offset += count;
      left -= count;
    }
  }

  async varint(): Promise<number> {
    // A varint is at most 8 bytes; gather up to 8 (or what is left) and decode.
    const bytes: number[] = [];
    for (;;) {
      if (this.piece.length === this.offset && !(await this.pull())) throw new ArchiveError('archive_ended', 'the archive ended inside a number');
      const byte = this.piece[this.offset++]!;
      bytes.push(byte);
      if (byte < 0x80 || bytes.length >= 8) return decodeVarint(Uint8Array.from(bytes), 0).value;
    }
  }

  async cancel(): Promise<void> {
    this.done = true;
    await this.reader.cancel().catch(() => undefined);
  }
}

type IndexReadOptions = RemoteOptions & {
  /** Largest declared index accepted (default 256 MiB). */
  maxIndexSize?: number;
  /** When known (a fresh signed URL of a known package): the index hash it must have (hex). */
  expectedHash?: string;
};

async function verifyIndex(indexBytes: Uint8Array, indexHash: Uint8Array, adapters: ArchiveAdapters, expectedHash?: string): Promise<ArchiveIndex> {
  const actual = await adapters.sha256(indexBytes);
  if (!equalBytes(actual, indexHash)) throw new ArchiveError('wrong_index_hash', 'the archive index does not match its hash');
  if (expectedHash !== undefined && toHex(actual) !== expectedHash.toLowerCase()) {
    throw new ArchiveError('wrong_index_hash', 'the archive holds another package than the one expected');
  }
  const index = decodeIndex(indexBytes);
  // Links leading out of the tree are refused before anything is written (path_outside_target).
  checkSymlinks(index.root);
  return index;
}

/** Reads magic, flags and the declared index size; returns the index size and the header's length. */
async function readHeaderFields(body: BodyReader, maxIndexSize: number): Promise<{ indexSize: number; headerSize: number }> {
  const magic = await body.take(ARCHIVE_MAGIC.length).catch((error: unknown) => {
    throw error instanceof ArchiveError && error.code === 'archive_ended' ? new ArchiveError('wrong_magic', 'not a Cartridge archive (too short)') : error;
  });
  if (!equalBytes(magic, ARCHIVE_MAGIC)) throw new ArchiveError('wrong_magic', 'not a Cartridge archive');
  const flags = await body.varint();
  if (flags === FLAG_PATCH) throw new ArchiveError('invalid_entry', 'a patch archive cannot be installed on its own');
  if (flags !== 0) throw new ArchiveError('invalid_entry', `unknown archive flags ${flags}`);
  const indexSize = await body.varint();
  if (indexSize === 0 || indexSize > maxIndexSize) {
    throw new ArchiveError('wrong_index_size', `declared index size ${indexSize} is outside 1..${maxIndexSize}`);
  }
  return { indexSize, headerSize: encodeHeader(false, indexSize).length };
}

/**
 * Reads an archive's header and index from its URL with Range requests (one for a small index, two for
 * a larger one); a server answering 200 is read from the start until the index is complete. The index
 * is verified against its hash, decoded with the shared rules and its links checked. Patch archives
 * are refused (they cannot be installed alone).
 */
export async function readRemoteIndex(url: string, options: IndexReadOptions = {}): Promise<RemoteIndex> {
  const adapters = options.adapters ?? detectAdapters();
  const maxIndexSize = options.maxIndexSize ?? DEFAULT_MAX_INDEX_SIZE;
  const first = await request(url, `bytes=0-${FIRST_INDEX_BYTES - 1}`, options);
  const rangeSupported = first.status === 206;
  const total = rangeSupported ? await checkContentRange(first, 0, FIRST_INDEX_BYTES) : undefined;
  let body = new BodyReader(first.body!, options.stats, options.signal);
  try {
    const { indexSize, headerSize } = await readHeaderFields(body, maxIndexSize);
    const need = indexSize + INDEX_HASH_SIZE;
    if (total !== undefined && headerSize + need > total) throw new ArchiveError('archive_ended', 'the archive is shorter than its index');
    let bytes: Uint8Array;
    if (!rangeSupported) {
      bytes = (await body.take(need)).slice();
    } else {
      // The first reply holds the start of the index; one more Range request fetches the rest.
      const parts: Uint8Array[] = [];
      const have = Math.min(need, FIRST_INDEX_BYTES - headerSize);
      parts.push((await body.take(have)).slice());
      if (have < need) {
        await body.cancel();
        const start = headerSize + have;
        const end = headerSize + need;
        const second = await request(url, `bytes=${start}-${end - 1}`, options);
        if (second.status === 206) await checkContentRange(second, start, end);
        body = new BodyReader(second.body!, options.stats, options.signal);
        if (second.status === 200) await body.skip(start);
        parts.push((await body.take(need - have)).slice());
      }
      bytes = new Uint8Array(need);
      let at = 0;
      for (const part of parts) {
        bytes.set(part, at);
        at += part.length;
      }
    }
    const indexBytes = bytes.subarray(0, indexSize);
    const indexHash = bytes.slice(indexSize);
    const index = await verifyIndex(indexBytes, indexHash, adapters, options.expectedHash);
    return { index, indexBytes, indexHash, dataStart: headerSize + need, rangeSupported };
  } catch (error) {
    options.signal?.throwIfAborted();
    throw toArchiveError(error, 'invalid_entry', 'the archive index is invalid');
  } finally {
    await body.cancel();
  }
}

/** What an archive's header says of its index, without the index: its size, its hash, where chunk data starts. */
export type RemoteIndexHeader = { indexSize: number; indexHash: Uint8Array; dataStart: number };

/** Bytes asked for the header alone: magic (4), flags (1), index size (a varint of at most 8). */
const HEADER_PROBE_BYTES = 16;

/**
 * Reads only an archive's header and index hash (two small Range requests: the header, then the 32
 * bytes after the index), for callers that get the index itself elsewhere (an index URL, a delta
 * against the installed index: dictionary-index.ts) and check it with remoteIndexFrom. Undefined when
 * the server ignores Range (it answered 200: the caller reads the index from the archive instead).
 */
export async function readRemoteIndexHeader(url: string, options: IndexReadOptions = {}): Promise<RemoteIndexHeader | undefined> {
  const maxIndexSize = options.maxIndexSize ?? DEFAULT_MAX_INDEX_SIZE;
  const first = await request(url, `bytes=0-${HEADER_PROBE_BYTES - 1}`, options);
  if (first.status !== 206) {
    await first.body?.cancel().catch(() => undefined);
    return undefined;
  }
  const total = await checkContentRange(first, 0, HEADER_PROBE_BYTES);
  let body = new BodyReader(first.body!, options.stats, options.signal);
  try {
    const { indexSize, headerSize } = await readHeaderFields(body, maxIndexSize);
    await body.cancel();
    const start = headerSize + indexSize;
    const end = start + INDEX_HASH_SIZE;
    if (total !== undefined && end > total) throw new ArchiveError('archive_ended', 'the archive is shorter than its index');
    const second = await request(url, `bytes=${start}-${end - 1}`, options);
    if (second.status === 206) await checkContentRange(second, start, end);
    body = new BodyReader(second.body!, options.stats, options.signal);
    if (second.status === 200) await body.skip(start);
    const indexHash = (await body.take(INDEX_HASH_SIZE)).slice();
    return { indexSize, indexHash, dataStart: end };
  } catch (error) {
    options.signal?.throwIfAborted();
    throw toArchiveError(error, 'invalid_entry', 'the archive header is invalid');
  } finally {
    await body.cancel();
  }
}

/**
 * An index obtained apart from the archive (readRemoteIndexHeader's callers), checked against the
 * archive's header: the same size and hash, then decoded with the shared rules and its links checked,
 * like readRemoteIndex's.
 */
export async function remoteIndexFrom(indexBytes: Uint8Array, header: RemoteIndexHeader, options: Pick<IndexReadOptions, 'adapters' | 'expectedHash'> = {}): Promise<RemoteIndex> {
  const adapters = options.adapters ?? detectAdapters();
  if (indexBytes.length !== header.indexSize) {
    throw new ArchiveError('wrong_index_size', `the index is ${indexBytes.length} bytes; the archive's is ${header.indexSize}`);
  }
  try {
    const index = await verifyIndex(indexBytes, header.indexHash, adapters, options.expectedHash);
    return { index, indexBytes, indexHash: header.indexHash, dataStart: header.dataStart, rangeSupported: true };
  } catch (error) {
    throw toArchiveError(error, 'invalid_entry', 'the archive index is invalid');
  }
}

/**
 * Fetches an encoded index file (the `.crt-index` download: index bytes only) and checks it against
 * `expectedHash` (hex) when given. Returns the bytes and their SHA-256; decoding is the caller's.
 */
export async function fetchIndexFile(
  url: string,
  options: RemoteOptions & { expectedHash?: string; maxIndexSize?: number } = {},
): Promise<{ bytes: Uint8Array; hash: Uint8Array }> {
  const adapters = options.adapters ?? detectAdapters();
  const maxIndexSize = options.maxIndexSize ?? DEFAULT_MAX_INDEX_SIZE;
  const response = await request(url, undefined, options);
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    throw fetchFailed(url, response.status);
  }
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxIndexSize) {
    await response.body?.cancel().catch(() => undefined);
    throw new ArchiveError('wrong_index_size', `the index is ${declared} bytes, above the limit of ${maxIndexSize}`);
  }
  const body = new BodyReader(response.body!, options.stats, options.signal);
  let bytes: Uint8Array;
  try {
    bytes = await body.readAll(maxIndexSize);
  } catch (error) {
    throw error instanceof ArchiveError && error.code === 'invalid_option'
      ? new ArchiveError('wrong_index_size', `the index is above the limit of ${maxIndexSize} bytes`)
      : error;
  } finally {
    await body.cancel();
  }
  const hash = await adapters.sha256(bytes);
  if (options.expectedHash !== undefined && toHex(hash) !== options.expectedHash.toLowerCase()) {
    throw new ArchiveError('wrong_index_hash', 'the package index does not match its hash');
  }
  return { bytes, hash };
}

/** Raw bytes of a stored chunk: decompressed (bounded by its size) when stored compressed, then verified. */
export async function decodeChunk(stored: Uint8Array, chunk: ArchiveChunk, adapters: ArchiveAdapters): Promise<Uint8Array> {
  let bytes = stored;
  if (chunk.compressedSize !== chunk.size) {
    try {
      const out = adapters.zstdDecompress(stored, chunk.size);
      bytes = isPromise(out) ? await out : out;
    } catch (error) {
      throw toArchiveError(error, 'wrong_chunk_hash', `chunk ${toHex(chunk.hash).slice(0, 12)}… does not decompress`);
    }
  }
  if (bytes.length !== chunk.size) throw new ArchiveError('wrong_chunk_hash', `chunk ${toHex(chunk.hash).slice(0, 12)}… has the wrong size`);
  const digest = adapters.sha256(bytes);
  if (!equalBytes(isPromise(digest) ? await digest : digest, chunk.hash)) {
    throw new ArchiveError('wrong_chunk_hash', `chunk ${toHex(chunk.hash).slice(0, 12)}… does not match its hash`);
  }
  return bytes;
}

/** Fetches one run with a Range request and hands each verified missing chunk to `onChunk`. */
export async function fetchRun<T extends PlannedChunk>(url: string, run: Run<T>, options: RunOptions<T>): Promise<void> {
  const adapters = options.adapters ?? detectAdapters();
  const response = await request(url, `bytes=${run.start}-${run.end - 1}`, options);
  let position: number;
  if (response.status === 206) {
    await checkContentRange(response, run.start, run.end);
    position = run.start;
  } else {
    position = 0; // the whole archive: skip to the run
  }
  const body = new BodyReader(response.body!, options.stats, options.signal);
  try {
    for (const planned of run.chunks) {
      options.signal?.throwIfAborted();
      if (position < planned.offset) {
        await body.skip(planned.offset - position);
        position = planned.offset;
      }
      const size = planned.chunk.compressedSize;
      position += size;
      if (!planned.missing) {
        await body.skip(size);
        continue;
      }
      const stored = body.takeSync(size) ?? (await body.take(size));
      const bytes = planned.chunk.compressedSize === planned.chunk.size ? await verifyRaw(stored, planned.chunk, adapters) : await decodeChunk(stored, planned.chunk, adapters);
      const handled = options.onChunk(planned, bytes);
      if (handled !== undefined) await handled;
    }
  } finally {
    await body.cancel();
  }
}

/** Raw (uncompressed) stored bytes: the hash check alone, without a promise when the adapter hashes synchronously. */
function verifyRaw(bytes: Uint8Array, chunk: ArchiveChunk, adapters: ArchiveAdapters): Uint8Array | Promise<Uint8Array> {
  const fail = () => new ArchiveError('wrong_chunk_hash', `chunk ${toHex(chunk.hash).slice(0, 12)}… does not match its hash`);
  if (bytes.length !== chunk.size) throw fail();
  const digest = adapters.sha256(bytes);
  if (isPromise(digest)) {
    return digest.then((value) => {
      if (!equalBytes(value, chunk.hash)) throw fail();
      return bytes;
    });
  }
  if (!equalBytes(digest, chunk.hash)) throw fail();
  return bytes;
}

/**
 * Fetches every run, `concurrency` at once (default 4). The first failure stops the others (their
 * requests are aborted) and is thrown; an abort of `signal` throws its reason.
 */
export async function fetchRuns<T extends PlannedChunk>(url: string, runs: readonly Run<T>[], options: RunOptions<T> & { concurrency?: number }): Promise<void> {
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_RUN_OPTIONS.concurrency);
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < runs.length) {
      const run = runs[next++]!;
      try {
        await fetchRun(url, run, { ...options, signal });
      } catch (error) {
        if (failure === undefined) {
          failure = { error };
          stop.abort(error);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, runs.length) }, worker));
  if (failure !== undefined) {
    options.signal?.throwIfAborted();
    throw failure.error;
  }
}
