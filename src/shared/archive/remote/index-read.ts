import { ArchiveError, toArchiveError } from '../errors.ts';
import { detectAdapters, type ArchiveAdapters } from '../adapters.ts';
import { equalBytes, toHex } from '../bytes.ts';
import { ARCHIVE_MAGIC, DEFAULT_MAX_INDEX_SIZE, FLAG_PATCH, INDEX_HASH_SIZE } from '../constants.ts';
import { encodeHeader } from '../format.ts';
import { decodeIndex } from '../index-decode.ts';
import { checkSymlinks } from '../symlink-check.ts';
import type { ArchiveIndex } from '../types.ts';
import { BodyReader } from './body-reader.ts';
import { checkContentRange, request, type RemoteOptions } from './request.ts';

/**
 * An archive's header and index read over HTTP by byte ranges, before any chunk: the whole index from
 * the archive (readRemoteIndex), or only the header and index hash when the index comes from elsewhere
 * (readRemoteIndexHeader, then remoteIndexFrom). Every index is checked against its hash, decoded with
 * the shared rules and its links checked before the caller sees it.
 */
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

/** How many bytes the first index request asks for; the rest of a larger index comes in a second one. */
const FIRST_INDEX_BYTES = 64 * 1024;

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
