import { ArchiveError, toArchiveError } from './errors.ts';
import { detectAdapters, type ArchiveAdapters, type MaybePromise } from './adapters.ts';
import { equalBytes } from './bytes.ts';
import { StreamByteReader } from './byte-reader.ts';
import { listUniqueChunks } from './chunks.ts';
import { ARCHIVE_MAGIC, DEFAULT_MAX_INDEX_SIZE, FLAG_PATCH, INDEX_HASH_SIZE } from './constants.ts';
import { decodeIndex } from './index-decode.ts';
import { checkSymlinks } from './symlink-check.ts';
import type { ArchiveChunk, ArchiveIndex } from './types.ts';

export type ReadOptions = {
  adapters?: ArchiveAdapters;
  /** Largest declared index accepted, in bytes (default 256 MiB); above it: wrong_index_size. */
  maxIndexSize?: number;
  /** Patch archives: the raw bytes of a chunk the base holds (verified here). Without it those chunks are skipped. */
  getBaseChunk?: (hash: Uint8Array, chunk: ArchiveChunk) => Uint8Array | undefined | Promise<Uint8Array | undefined>;
  /**
   * Hashes batches of chunks on another thread (Node/Bun: `startHashThread()` from hash-thread.ts;
   * extractArchive uses one). Used when the chunk data is at least 4 MiB: the reader then reads a few
   * batches ahead and the consumer handles earlier, verified chunks while later ones are hashed. What is
   * yielded, and when a failure is thrown, does not change.
   */
  chunkHasher?: ChunkBatchHasher;
};

/** SHA-256 of many chunks at once, typically off the calling thread (hash-thread.ts). */
export type ChunkBatchHasher = {
  /** The most bytes (sum of view lengths) one batch may hold; at least MAX_CHUNK_SIZE. */
  readonly maxBatchBytes: number;
  /**
   * The digests of `views`, 32 bytes each, in order. The views must stay unchanged until it settles.
   * `chunks` says which chunk each view is (an extractor may place verified chunks from there).
   */
  hashBatch(views: readonly Uint8Array[], chunks?: readonly { ordinal: number; hash: Uint8Array }[]): Promise<Uint8Array>;
};

export type ReadChunk = {
  /** Position among the index's distinct chunks, in first-reference order. */
  ordinal: number;
  hash: Uint8Array;
  size: number;
  compressedSize: number;
  /** Decompressed and verified against the hash. */
  bytes: Uint8Array;
  /** The stored form as it was in the archive (equal to `bytes` when not compressed). */
  storedBytes: Uint8Array;
  fromBase: boolean;
};

export type ArchiveReadResult = {
  index: ArchiveIndex;
  indexHash: Uint8Array;
  /** Set for patch archives: the index hash of the base the patch applies to. */
  baseIndexHash?: Uint8Array;
  /**
   * Every distinct chunk once, in first-reference order; then checks that the stream has ended. A
   * yielded chunk's bytes are never reused or changed afterwards: a consumer may keep them (the
   * extractor writes them while it reads on).
   */
  chunks(): AsyncGenerator<ReadChunk>;
  /** Releases the stream when the chunks are not wanted (only the index was). */
  cancel(): Promise<void>;
};

type ResolvedReadOptions = Required<Pick<ReadOptions, 'adapters' | 'maxIndexSize'>> & Pick<ReadOptions, 'getBaseChunk' | 'chunkHasher'>;

async function readHeader(input: StreamByteReader, options: ResolvedReadOptions) {
  const magic = await input.read(ARCHIVE_MAGIC.length).catch((error: unknown) => {
    throw error instanceof ArchiveError && error.code === 'archive_ended'
      ? new ArchiveError('wrong_magic', 'not a Cartridge archive (too short)')
      : error;
  });
  if (!equalBytes(magic, ARCHIVE_MAGIC)) throw new ArchiveError('wrong_magic', 'not a Cartridge archive');
  const flags = await input.readVarint();
  if (flags !== 0 && flags !== FLAG_PATCH) throw new ArchiveError('invalid_entry', `unknown archive flags ${flags}`);
  const indexSize = await input.readVarint();
  if (indexSize === 0 || indexSize > options.maxIndexSize) {
    throw new ArchiveError('wrong_index_size', `declared index size ${indexSize} is outside 1..${options.maxIndexSize}`);
  }
  const indexBytes = await input.read(indexSize);
  // Copy out of the stream's piece: the index outlives it and must not pin a larger buffer.
  const indexCopy = indexBytes.slice();
  const indexHash = (await input.read(INDEX_HASH_SIZE)).slice();
  if (!equalBytes(await options.adapters.sha256(indexCopy), indexHash)) throw new ArchiveError('wrong_index_hash', 'index hash does not match');
  const index = decodeIndex(indexCopy);
  // Links that lead out of the tree are refused here, before any chunk is read (path_outside_target).
  checkSymlinks(index.root);
  return { patch: (flags & FLAG_PATCH) !== 0, index, indexHash };
}

async function readStoredOrdinals(input: StreamByteReader, chunkCount: number): Promise<Set<number>> {
  const count = await input.readVarint();
  if (count > chunkCount) throw new ArchiveError('invalid_entry', `patch stores ${count} of ${chunkCount} chunks`);
  const ordinals = new Set<number>();
  let ordinal = -1;
  for (let i = 0; i < count; i++) {
    ordinal += (await input.readVarint()) + 1;
    if (ordinal >= chunkCount) throw new ArchiveError('invalid_entry', `patch stores chunk ${ordinal} of ${chunkCount}`);
    ordinals.add(ordinal);
  }
  return ordinals;
}

function decompressFailed(error: unknown): ArchiveError {
  return toArchiveError(error, 'wrong_chunk_hash', 'chunk does not decompress');
}

/** The raw bytes of a stored chunk; synchronous unless the adapter's decompressor is asynchronous (web). */
function decodeStored(stored: Uint8Array, chunk: ArchiveChunk, adapters: ArchiveAdapters): MaybePromise<Uint8Array> {
  let bytes: MaybePromise<Uint8Array>;
  try {
    bytes = adapters.zstdDecompress(stored, chunk.size);
  } catch (error) {
    throw decompressFailed(error);
  }
  if (bytes instanceof Promise) {
    return bytes.then(
      (done) => checkDecodedSize(done, chunk),
      (error: unknown) => {
        throw decompressFailed(error);
      },
    );
  }
  return checkDecodedSize(bytes, chunk);
}

function checkDecodedSize(bytes: Uint8Array, chunk: ArchiveChunk): Uint8Array {
  if (bytes.length !== chunk.size) throw new ArchiveError('wrong_chunk_hash', 'chunk decompresses to the wrong size');
  return bytes;
}

/** A chunk read (decompressed) from the data or given by the base, not verified yet. */
type PreparedChunk = { ordinal: number; chunk: ArchiveChunk; storedBytes: Uint8Array; bytes: Uint8Array; inData: boolean };

function prepared(ordinal: number, chunk: ArchiveChunk, storedBytes: Uint8Array, bytes: Uint8Array, inData: boolean): PreparedChunk {
  if (bytes.length !== chunk.size) throw new ArchiveError('wrong_chunk_hash', `chunk ${ordinal} does not match its hash`);
  return { ordinal, chunk, storedBytes, bytes, inData };
}

function preparedStored(ordinal: number, chunk: ArchiveChunk, storedBytes: Uint8Array, adapters: ArchiveAdapters): MaybePromise<PreparedChunk> {
  if (chunk.compressedSize === chunk.size) return prepared(ordinal, chunk, storedBytes, storedBytes, true);
  const decoded = decodeStored(storedBytes, chunk, adapters);
  if (decoded instanceof Promise) return decoded.then((bytes) => prepared(ordinal, chunk, storedBytes, bytes, true));
  return prepared(ordinal, chunk, storedBytes, decoded, true);
}

/**
 * The next chunk's bytes: from the stream when the archive stores it, else from the base (undefined when
 * there is no getBaseChunk: the chunk is skipped). Synchronous in the common case (the bytes already in
 * the current stream piece, a native decompressor), so a chunk costs no promise.
 */
function prepareChunk(
  input: StreamByteReader,
  ordinal: number,
  chunk: ArchiveChunk,
  inData: boolean,
  options: ResolvedReadOptions,
): MaybePromise<PreparedChunk | undefined> {
  if (inData) {
    const storedBytes = input.take(chunk.compressedSize);
    if (storedBytes !== undefined) return preparedStored(ordinal, chunk, storedBytes, options.adapters);
    return input.read(chunk.compressedSize).then((bytes) => preparedStored(ordinal, chunk, bytes, options.adapters));
  }
  const getBaseChunk = options.getBaseChunk;
  if (getBaseChunk === undefined) return undefined;
  return (async () => {
    const found = await getBaseChunk(chunk.hash, chunk);
    if (found === undefined) throw new ArchiveError('missing_chunk', 'the base lacks a chunk the patch needs');
    return prepared(ordinal, chunk, found, found, false);
  })();
}

function readChunk(item: PreparedChunk): ReadChunk {
  const { ordinal, chunk } = item;
  return { ordinal, hash: chunk.hash, size: chunk.size, compressedSize: chunk.compressedSize, bytes: item.bytes, storedBytes: item.storedBytes, fromBase: !item.inData };
}

function hashMismatch(ordinal: number): ArchiveError {
  return new ArchiveError('wrong_chunk_hash', `chunk ${ordinal} does not match its hash`);
}

/** Chunk data in order, one chunk at a time, hashed on this thread (adapters.sha256). */
async function* iterateChunks(
  input: StreamByteReader,
  unique: ArchiveChunk[],
  stored: Set<number> | undefined,
  options: ResolvedReadOptions,
): AsyncGenerator<ReadChunk> {
  const adapters = options.adapters;
  let finished = false;
  try {
    for (let ordinal = 0; ordinal < unique.length; ordinal++) {
      const inData = stored === undefined || stored.has(ordinal);
      const next = prepareChunk(input, ordinal, unique[ordinal]!, inData, options);
      const item = next instanceof Promise ? await next : next;
      if (item === undefined) continue;
      const digest = adapters.sha256(item.bytes);
      if (!equalBytes(digest instanceof Promise ? await digest : digest, item.chunk.hash)) throw hashMismatch(ordinal);
      yield readChunk(item);
    }
    if (!(await input.atEnd())) throw new ArchiveError('invalid_entry', 'bytes after the last chunk');
    finished = true;
  } catch (error) {
    throw toArchiveError(error, 'invalid_entry', 'archive is invalid');
  } finally {
    if (!finished) await input.cancel();
  }
}

/** Chunk data at least this large goes through a ChunkBatchHasher when one is given. */
export const BATCH_HASH_MIN_BYTES = 4 * 1024 * 1024;
/** Batches being hashed while the consumer handles the chunks of an earlier one. */
const BATCHES_AHEAD = 3;
/** A batch is sent once it holds this many bytes (or the hasher's maximum would be passed). */
const BATCH_TARGET_BYTES = 1024 * 1024;

function ignore(): void {}

function digestMatches(digests: Uint8Array, index: number, hash: Uint8Array): boolean {
  const at = index * 32;
  for (let i = 0; i < 32; i++) if (digests[at + i] !== hash[i]) return false;
  return true;
}

/**
 * The same chunks as iterateChunks, hashed in batches by `hasher` (another thread) up to BATCHES_AHEAD
 * batches ahead of the consumer. Only verified chunks are yielded, in order; a failure met while reading
 * ahead (stream ended, bad zstd, missing base chunk) is thrown after the chunks before it were yielded,
 * as iterateChunks would.
 */
async function* iterateChunksBatched(
  input: StreamByteReader,
  unique: ArchiveChunk[],
  stored: Set<number> | undefined,
  options: ResolvedReadOptions,
  hasher: ChunkBatchHasher,
): AsyncGenerator<ReadChunk> {
  const target = Math.min(BATCH_TARGET_BYTES, hasher.maxBatchBytes);
  const sent: { items: PreparedChunk[]; digests: Promise<Uint8Array> }[] = [];
  let items: PreparedChunk[] = [];
  let bytes = 0;
  const send = (): void => {
    if (items.length === 0) return;
    const digests = hasher.hashBatch(
      items.map((item) => item.bytes),
      items.map((item) => ({ ordinal: item.ordinal, hash: item.chunk.hash })),
    );
    digests.catch(ignore); // awaited in order below; not an unhandled rejection meanwhile
    sent.push({ items, digests });
    items = [];
    bytes = 0;
  };
  let ordinal = 0;
  let failure: { error: unknown } | undefined;
  let finished = false;
  try {
    for (;;) {
      while (failure === undefined && ordinal < unique.length && sent.length < BATCHES_AHEAD) {
        let item: PreparedChunk | undefined;
        try {
          const inData = stored === undefined || stored.has(ordinal);
          const next = prepareChunk(input, ordinal, unique[ordinal]!, inData, options);
          item = next instanceof Promise ? await next : next;
        } catch (error) {
          failure = { error };
          break;
        }
        ordinal++;
        if (item === undefined) continue;
        if (bytes + item.bytes.length > hasher.maxBatchBytes) send();
        items.push(item);
        bytes += item.bytes.length;
        if (bytes >= target) send();
      }
      if (failure !== undefined || ordinal >= unique.length) send();
      const batch = sent.shift();
      if (batch === undefined) break;
      const digests = await batch.digests;
      for (let i = 0; i < batch.items.length; i++) {
        const item = batch.items[i]!;
        if (!digestMatches(digests, i, item.chunk.hash)) throw hashMismatch(item.ordinal);
        yield readChunk(item);
      }
    }
    if (failure !== undefined) throw failure.error;
    if (!(await input.atEnd())) throw new ArchiveError('invalid_entry', 'bytes after the last chunk');
    finished = true;
  } catch (error) {
    throw toArchiveError(error, 'invalid_entry', 'archive is invalid');
  } finally {
    if (!finished) await input.cancel();
  }
}

/** Bytes of chunk data the archive holds. */
function storedBytes(unique: ArchiveChunk[], stored: Set<number> | undefined): number {
  let total = 0;
  for (let ordinal = 0; ordinal < unique.length; ordinal++) {
    if (stored === undefined || stored.has(ordinal)) total += unique[ordinal]!.compressedSize;
  }
  return total;
}

/**
 * Reads an archive stream: header and index first (verified), then chunks on demand. Memory holds the
 * index (at most maxIndexSize) and one chunk at a time (with a chunkHasher: up to BATCHES_AHEAD batches
 * of ≈ 1 MiB read ahead).
 */
export async function readArchive(stream: ReadableStream<Uint8Array>, options: ReadOptions = {}): Promise<ArchiveReadResult> {
  const resolved: ResolvedReadOptions = {
    adapters: options.adapters ?? detectAdapters(),
    maxIndexSize: options.maxIndexSize ?? DEFAULT_MAX_INDEX_SIZE,
    getBaseChunk: options.getBaseChunk,
    chunkHasher: options.chunkHasher,
  };
  const input = new StreamByteReader(stream);
  try {
    const { patch, index, indexHash } = await readHeader(input, resolved);
    const unique = listUniqueChunks(index);
    const baseIndexHash = patch ? (await input.read(INDEX_HASH_SIZE)).slice() : undefined;
    const stored = patch ? await readStoredOrdinals(input, unique.length) : undefined;
    let started = false;
    const result: ArchiveReadResult = {
      index,
      indexHash,
      chunks() {
        if (started) throw new ArchiveError('invalid_option', 'chunks() can be iterated once');
        started = true;
        const hasher = resolved.chunkHasher;
        if (hasher !== undefined && storedBytes(unique, stored) >= BATCH_HASH_MIN_BYTES) {
          return iterateChunksBatched(input, unique, stored, resolved, hasher);
        }
        return iterateChunks(input, unique, stored, resolved);
      },
      cancel: () => input.cancel(),
    };
    if (baseIndexHash !== undefined) result.baseIndexHash = baseIndexHash;
    return result;
  } catch (error) {
    await input.cancel();
    throw toArchiveError(error, 'invalid_entry', 'archive is invalid');
  }
}

/** One `fetch(url, { mode: 'cors' })`; any status but 200 is archive_fetch_failed with that status. */
export async function readArchiveFromUrl(url: string | URL, options: ReadOptions & { fetch?: typeof fetch } = {}): Promise<ArchiveReadResult> {
  const fetcher = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await fetcher(url, { mode: 'cors' });
  } catch (error) {
    throw new ArchiveError('archive_fetch_failed', `cannot fetch ${String(url)}`, { status: 0, cause: error });
  }
  if (response.status !== 200 || response.body === null) {
    await response.body?.cancel().catch(() => undefined);
    throw new ArchiveError('archive_fetch_failed', `fetching ${String(url)} answered ${response.status}`, {
      status: response.status,
    });
  }
  return readArchive(response.body, options);
}
