import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { detectAdapters } from './adapters.ts';
import { equalBytes } from './bytes.ts';
import { indexAboveLimit, readCappedIndex } from './index-body.ts';
import { DEFAULT_MAX_INDEX_SIZE, INDEX_HASH_SIZE } from './constants.ts';
import { ArchiveError } from './errors.ts';
import { BodyReader } from './remote/body-reader.ts';
import type { RemoteOptions } from './remote/request.ts';

/**
 * Index deltas by Compression Dictionary Transport (RFC 9842, content coding `dcz`): a client that holds
 * an older index of the same project (the companion app's receipt) sends its SHA-256 in
 * `Available-Dictionary` with `dcz` in `Accept-Encoding`; the server answers the new index as
 *
 *   5e 2a 4d 18 20 00 00 00   a zstd skippable frame of 32 bytes (RFC 9842's dcz magic)
 *   32 bytes                  SHA-256 of the dictionary (the old index)
 *   zstd frame(s)             the new index, compressed with the old index as raw-content dictionary
 *
 * Two indexes of the same game differ only around the entries of changed files, so the delta of a
 * 1 MiB index is a few hundred bytes. Encoder settings (measured on Bun 1.4.5's zstd, docs/archive-format.md
 * "Index deltas"): the window must cover the new index (a dictionary is usable only while the frame's
 * output is within one window), and zstd indexes only a suffix of a large dictionary (about
 * 8 << max(hashLog, chainLog) bytes for the fast strategies, capped near 16 MiB), so the tables grow
 * with the dictionary: level 3 (dfast) up to 16 MiB, greedy with bigger tables above, 64 MiB at most.
 *
 * node:zlib: servers and the companion app only, never browser bundles (index.ts does not export this).
 */
export const DCZ_MAGIC = Uint8Array.of(0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00);
/** Magic and dictionary hash before the zstd data. */
export const DCZ_HEADER_SIZE = DCZ_MAGIC.length + INDEX_HASH_SIZE;
/** Largest base index used as a dictionary (its tables take ≈ 6× its size while compressing). */
export const MAX_DICTIONARY_BYTES = 64 * 1024 * 1024;
/** Largest new index sent as a delta: windowLog 27, the most RFC 9842 clients must accept (128 MB). */
const MAX_DELTA_TARGET_BYTES = 128 * 1024 * 1024;
/** Above this base size the fast strategies cannot index the whole dictionary: greedy with larger tables. */
const DFAST_DICTIONARY_BYTES = 16 * 1024 * 1024;
const MAX_WINDOW_LOG = 27;
/** A zstd dictionary file starts with this; node:zlib would parse such a base as one, not as raw content. */
const ZSTD_DICTIONARY_MAGIC = Uint8Array.of(0x37, 0xa4, 0x30, 0xec);

const compressAsync = promisify(zlib.zstdCompress) as (data: Uint8Array, options: object) => Promise<Uint8Array>;
const decompressAsync = promisify(zlib.zstdDecompress) as (data: Uint8Array, options: object) => Promise<Uint8Array>;

const ceilLog2 = (value: number) => Math.max(0, Math.ceil(Math.log2(Math.max(1, value))));
const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** Whether `base` can serve as a raw-content dictionary for `target` (sizes bounded, not a zstd dictionary file). */
export function canDeltaIndex(baseSize: number, targetSize: number): boolean {
  return baseSize > 0 && baseSize <= MAX_DICTIONARY_BYTES && targetSize > 0 && targetSize <= MAX_DELTA_TARGET_BYTES;
}

/** zstd parameters for compressing a `targetSize`-byte index against a `baseSize`-byte one (see the top). */
export function deltaCompressionParams(baseSize: number, targetSize: number): Record<number, number> {
  const c = zlib.constants;
  const windowLog = clamp(ceilLog2(targetSize), 10, MAX_WINDOW_LOG);
  const dictLog = ceilLog2(baseSize);
  if (baseSize <= DFAST_DICTIONARY_BYTES) {
    const tableLog = clamp(dictLog - 3, 17, 21);
    return { [c.ZSTD_c_compressionLevel]: 3, [c.ZSTD_c_windowLog]: windowLog, [c.ZSTD_c_hashLog]: tableLog, [c.ZSTD_c_chainLog]: tableLog };
  }
  const tableLog = clamp(dictLog - 1, 17, 25);
  return { [c.ZSTD_c_strategy]: 3, [c.ZSTD_c_searchLog]: 1, [c.ZSTD_c_windowLog]: windowLog, [c.ZSTD_c_hashLog]: tableLog, [c.ZSTD_c_chainLog]: tableLog };
}

const startsWith = (bytes: Uint8Array, prefix: Uint8Array) => bytes.length >= prefix.length && equalBytes(bytes.subarray(0, prefix.length), prefix);

/**
 * The dcz body of `target` against `base` (whose SHA-256 is `baseHash`), off the main thread (zlib's
 * thread pool). Undefined when the sizes are out of bounds, the base cannot be a raw dictionary, or
 * the delta would not be smaller than the index itself.
 */
export async function encodeIndexDelta(target: Uint8Array, base: Uint8Array, baseHash: Uint8Array): Promise<Uint8Array | undefined> {
  if (!canDeltaIndex(base.length, target.length) || baseHash.length !== INDEX_HASH_SIZE || startsWith(base, ZSTD_DICTIONARY_MAGIC)) return undefined;
  const frame = await compressAsync(target, { dictionary: base, params: deltaCompressionParams(base.length, target.length) });
  if (DCZ_HEADER_SIZE + frame.length >= target.length) return undefined;
  const out = new Uint8Array(DCZ_HEADER_SIZE + frame.length);
  out.set(DCZ_MAGIC, 0);
  out.set(baseHash, DCZ_MAGIC.length);
  out.set(frame, DCZ_HEADER_SIZE);
  return out;
}

/**
 * The index a dcz body encodes against `base` (SHA-256 `baseHash`): magic and dictionary hash checked,
 * output bounded by `maxSize` (a hostile frame cannot expand past it), window at most 128 MiB. A frame
 * cut short decodes to fewer bytes without an error (node:zlib): the caller checks the result's size
 * and hash against the archive's (remote.ts remoteIndexFrom).
 */
export async function decodeIndexDelta(body: Uint8Array, base: Uint8Array, baseHash: Uint8Array, maxSize = DEFAULT_MAX_INDEX_SIZE): Promise<Uint8Array> {
  if (body.length <= DCZ_HEADER_SIZE || !startsWith(body, DCZ_MAGIC)) throw new ArchiveError('wrong_magic', 'the index delta does not start with the dcz header');
  if (!equalBytes(body.subarray(DCZ_MAGIC.length, DCZ_HEADER_SIZE), baseHash)) {
    throw new ArchiveError('wrong_index_hash', 'the index delta was made against another dictionary');
  }
  try {
    const out = await decompressAsync(body.subarray(DCZ_HEADER_SIZE), {
      dictionary: base,
      maxOutputLength: Math.max(1, maxSize),
      params: { [zlib.constants.ZSTD_d_windowLogMax]: MAX_WINDOW_LOG },
    });
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  } catch (error) {
    throw new ArchiveError('wrong_index_size', `the index delta does not decode within ${maxSize} bytes`, { cause: error });
  }
}

/** `Available-Dictionary`'s value for a SHA-256: an RFC 8941 byte sequence, `:base64:`. */
export function availableDictionaryValue(hash: Uint8Array): string {
  return `:${Buffer.from(hash).toString('base64')}:`;
}

/**
 * The SHA-256 an `Available-Dictionary` header names, or undefined when it is absent or malformed (an
 * RFC 8941 byte sequence of exactly 32 bytes; parameters after it are ignored; values over 256
 * characters are refused unread).
 */
export function parseAvailableDictionary(value: string | null | undefined): Uint8Array | undefined {
  if (value === null || value === undefined || value.length > 256) return undefined;
  const match = /^[ \t]*:([A-Za-z0-9+/]{43}=?):(?:;[^,]*)?[ \t]*$/.exec(value);
  if (!match) return undefined;
  const bytes = new Uint8Array(Buffer.from(match[1]!, 'base64'));
  return bytes.length === INDEX_HASH_SIZE ? bytes : undefined;
}

/** Whether an `Accept-Encoding` value lists `dcz` with a non-zero weight (a bare `*` does not count). */
export function acceptsDcz(value: string | null | undefined): boolean {
  if (!value || value.length > 1024) return false;
  for (const item of value.split(',')) {
    const [coding = '', ...parameters] = item.split(';').map((part) => part.trim().toLowerCase());
    if (coding !== 'dcz') continue;
    const weight = parameters.find((parameter) => parameter.startsWith('q='));
    if (weight === undefined || Number(weight.slice(2)) > 0) return true;
  }
  return false;
}

export type IndexFetchResult = {
  /** The encoded index (decoded from the delta when the server sent one). */
  bytes: Uint8Array;
  /** 'dcz': the server sent a delta against the dictionary; 'identity': the whole index. */
  encoding: 'dcz' | 'identity';
  /** Body bytes received. */
  received: number;
};

/**
 * Fetches an index file (the signed URL of GET .../download?filter=index), offering `dictionary` (an
 * older index of the same project and its SHA-256) for a dcz delta. The caller checks the result
 * against the archive's index hash (remote.ts remoteIndexFrom). A server that ignores the offer sends
 * the whole index, which is taken as is.
 */
export async function fetchIndexWithDictionary(
  url: string,
  dictionary: { bytes: Uint8Array; hash: Uint8Array } | undefined,
  options: RemoteOptions & { maxIndexSize?: number } = {},
): Promise<IndexFetchResult> {
  const maxIndexSize = options.maxIndexSize ?? DEFAULT_MAX_INDEX_SIZE;
  const fetcher = options.fetch ?? ((input: string, init?: RequestInit) => fetch(input, init));
  const headers: Record<string, string> = {};
  if (dictionary) {
    const actual = await (options.adapters ?? detectAdapters()).sha256(dictionary.bytes);
    if (!equalBytes(actual, dictionary.hash)) throw new ArchiveError('wrong_index_hash', 'the dictionary does not match its hash');
    headers['available-dictionary'] = availableDictionaryValue(dictionary.hash);
    headers['accept-encoding'] = 'dcz';
  }
  options.signal?.throwIfAborted();
  let response: Response;
  try {
    response = await fetcher(url, { headers, signal: options.signal });
  } catch (error) {
    options.signal?.throwIfAborted();
    throw new ArchiveError('archive_fetch_failed', 'fetching the index failed', { status: 0, cause: error });
  }
  if (options.stats) options.stats.requests += 1;
  if (response.status !== 200 || response.body === null) {
    await response.body?.cancel().catch(() => undefined);
    throw new ArchiveError('archive_fetch_failed', `fetching the index answered ${response.status}`, { status: response.status });
  }
  const coding = (response.headers.get('content-encoding') ?? '').trim().toLowerCase();
  const delta = coding === 'dcz';
  if (delta && !dictionary) {
    await response.body.cancel().catch(() => undefined);
    throw new ArchiveError('archive_fetch_failed', 'the index came as a delta that was not asked for');
  }
  const before = options.stats?.bytesFetched ?? 0;
  const counting = options.stats ?? { requests: 0, bytesFetched: 0 };
  const body = new BodyReader(response.body, counting, options.signal);
  const received = await readCappedIndex(body, maxIndexSize + DCZ_HEADER_SIZE, maxIndexSize);
  const receivedBytes = counting.bytesFetched - before;
  if (!delta) {
    if (received.length > maxIndexSize) throw indexAboveLimit(maxIndexSize);
    return { bytes: received, encoding: 'identity', received: receivedBytes };
  }
  const bytes = await decodeIndexDelta(received, dictionary!.bytes, dictionary!.hash, maxIndexSize);
  return { bytes, encoding: 'dcz', received: receivedBytes };
}
