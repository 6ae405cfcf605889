import { ArchiveError, toArchiveError } from './errors.ts';
import { detectAdapters, type ArchiveAdapters } from './adapters.ts';
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
  /** Every distinct chunk once, in first-reference order; then checks that the stream has ended. */
  chunks(): AsyncGenerator<ReadChunk>;
  /** Releases the stream when the chunks are not wanted (only the index was). */
  cancel(): Promise<void>;
};

type ResolvedReadOptions = Required<Pick<ReadOptions, 'adapters' | 'maxIndexSize'>> & Pick<ReadOptions, 'getBaseChunk'>;

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

async function decodeStored(stored: Uint8Array, chunk: ArchiveChunk, adapters: ArchiveAdapters): Promise<Uint8Array> {
  if (chunk.compressedSize === chunk.size) return stored;
  let bytes: Uint8Array;
  try {
    bytes = await adapters.zstdDecompress(stored, chunk.size);
  } catch (error) {
    throw toArchiveError(error, 'wrong_chunk_hash', 'chunk does not decompress');
  }
  if (bytes.length !== chunk.size) throw new ArchiveError('wrong_chunk_hash', 'chunk decompresses to the wrong size');
  return bytes;
}

async function* iterateChunks(
  input: StreamByteReader,
  unique: ArchiveChunk[],
  stored: Set<number> | undefined,
  options: ResolvedReadOptions,
): AsyncGenerator<ReadChunk> {
  let finished = false;
  try {
    for (let ordinal = 0; ordinal < unique.length; ordinal++) {
      const chunk = unique[ordinal]!;
      const inData = stored === undefined || stored.has(ordinal);
      let storedBytes: Uint8Array;
      if (inData) {
        storedBytes = await input.read(chunk.compressedSize);
      } else {
        if (options.getBaseChunk === undefined) continue;
        const found = await options.getBaseChunk(chunk.hash, chunk);
        if (found === undefined) throw new ArchiveError('missing_chunk', 'the base lacks a chunk the patch needs');
        storedBytes = found;
      }
      const bytes = inData ? await decodeStored(storedBytes, chunk, options.adapters) : storedBytes;
      if (bytes.length !== chunk.size || !equalBytes(await options.adapters.sha256(bytes), chunk.hash)) {
        throw new ArchiveError('wrong_chunk_hash', `chunk ${ordinal} does not match its hash`);
      }
      yield { ordinal, hash: chunk.hash, size: chunk.size, compressedSize: chunk.compressedSize, bytes, storedBytes, fromBase: !inData };
    }
    if (!(await input.atEnd())) throw new ArchiveError('invalid_entry', 'bytes after the last chunk');
    finished = true;
  } catch (error) {
    throw toArchiveError(error, 'invalid_entry', 'archive is invalid');
  } finally {
    if (!finished) await input.cancel();
  }
}

/**
 * Reads an archive stream: header and index first (verified), then chunks on demand. Memory holds the
 * index (at most maxIndexSize) and one chunk at a time.
 */
export async function readArchive(stream: ReadableStream<Uint8Array>, options: ReadOptions = {}): Promise<ArchiveReadResult> {
  const resolved: ResolvedReadOptions = {
    adapters: options.adapters ?? detectAdapters(),
    maxIndexSize: options.maxIndexSize ?? DEFAULT_MAX_INDEX_SIZE,
    getBaseChunk: options.getBaseChunk,
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
