import { AppError } from '../errors.ts';

/** What a store knows about a blob without reading it. */
export type BlobStat = { size: number; modified: Date };

/**
 * Bytes `start..end` of a blob, `end` inclusive like HTTP Range.
 * An `end` past the last byte is clamped; a `start` at or past the end yields an empty stream
 * (callers answering HTTP should `stat` first and reply 416 themselves).
 */
export type ByteRange = { start: number; end?: number };

/** An opened blob (BlobStore.openFile). */
export type BlobFile = {
  /** Reads up to target.byteLength bytes at `position` into target; the count read (0 at the end). */
  read(target: Uint8Array, position: number): Promise<number>;
  close(): Promise<void>;
};

export type BlobBody = ReadableStream<Uint8Array> | Uint8Array | Blob | string;

export type PresignOptions = {
  /** Seconds the URL stays valid; default 3600. */
  expiresIn?: number;
  /** Default GET. The URL signs only the host, so a client may add its own Range header. */
  method?: 'GET' | 'PUT' | 'HEAD';
  /** Asks S3 to answer with this Content-Disposition (`response-content-disposition`). */
  contentDisposition?: string;
};

/**
 * Where blobs live: package chunks (content-addressed), archive indexes, upload parts, images.
 * Keys are slash-separated paths (see `validateBlobKey`). Writes are atomic: a blob is either
 * absent or complete under its key; concurrent puts of one key both complete and the last wins.
 */
export type BlobStore = {
  readonly kind: 'file' | 's3';
  /** Stores `body` under `key`, replacing what was there. A body stream that errors stores nothing. */
  put(key: string, body: BlobBody, options?: { contentType?: string }): Promise<{ size: number }>;
  /** Streams the blob (or a range of it); a missing key rejects with AppError not_found. */
  get(key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array>>;
  /**
   * The blob (or a range of it) in memory, in one buffer: for small blobs read whole (chunks,
   * indexes, torrents), where a stream would cost a buffer per read plus the copy that joins them.
   * Same range rules and not_found as `get`.
   */
  read(key: string, range?: ByteRange): Promise<Uint8Array>;
  /** undefined when missing. */
  stat(key: string): Promise<BlobStat | undefined>;
  /** Removes the blob; a missing key is fine. */
  delete(key: string): Promise<void>;
  /** Every blob whose key starts with `prefix` (plain string prefix, '' for all), sorted by key. */
  list(prefix: string): AsyncIterable<{ key: string; size: number }>;
  /**
   * The blob opened for positioned reads into the caller's buffer (file store only): copies of many
   * small ranges (chunks out of packs) without a buffer each. A missing key rejects with not_found.
   */
  openFile?(key: string): Promise<BlobFile>;
  /** A URL that reaches the blob without going through this process (S3 only). */
  presign?(key: string, options?: PresignOptions): string;
  close?(): Promise<void>;
};

/** S3 caps a key at 1024 bytes; 64 of them stay free for an install's prefix (s3://bucket/prefix). */
export const maxBlobKeyLength = 960;
export const maxStorePrefixLength = 1024 - maxBlobKeyLength;
/** Filesystems cap a file name at 255 bytes; S3 does not, but both stores accept the same keys. */
const maxBlobKeySegmentLength = 255;

const keyCharacters = /^[A-Za-z0-9/._-]*$/;

/**
 * Keys are `a-z A-Z 0-9 / . _ -`, at most 960 characters, made of non-empty segments of at most
 * 255 characters separated by single slashes (no leading or trailing slash). No segment may start
 * with a dot: that rules out `.` and `..` and keeps dot-names free for the file store's own
 * bookkeeping (temp files).
 */
export function validateBlobKey(key: string): string {
  if (
    typeof key !== 'string' ||
    key.length === 0 ||
    key.length > maxBlobKeyLength ||
    !keyCharacters.test(key) ||
    key.split('/').some(isBadSegment)
  ) {
    throw new AppError('bad_param', 'Invalid `key`');
  }
  return key;
}

/** A list prefix is any beginning of a valid key: '' and a trailing slash are fine. */
export function validateBlobPrefix(prefix: string): string {
  if (prefix === '') return prefix;
  if (typeof prefix !== 'string' || prefix.length > maxBlobKeyLength || !keyCharacters.test(prefix)) {
    throw new AppError('bad_param', 'Invalid `prefix`');
  }
  const segments = prefix.split('/');
  const last = segments.pop() ?? '';
  // Whole segments follow the key rules; the unfinished last one may be '' (trailing slash) or a
  // plain beginning ("chunks/ab"), never a dot-name.
  if (segments.some(isBadSegment) || last.startsWith('.') || last.length > maxBlobKeySegmentLength) {
    throw new AppError('bad_param', 'Invalid `prefix`');
  }
  return prefix;
}

function isBadSegment(segment: string): boolean {
  return segment === '' || segment.startsWith('.') || segment.length > maxBlobKeySegmentLength;
}

export function validateByteRange(range: ByteRange | undefined): ByteRange | undefined {
  if (range === undefined) return undefined;
  const { start, end } = range;
  if (
    !Number.isSafeInteger(start) ||
    start < 0 ||
    (end !== undefined && (!Number.isSafeInteger(end) || end < start))
  ) {
    throw new AppError('bad_param', 'Invalid `range`');
  }
  return range;
}

/** The bytes of a body as chunks, one at a time, whatever form it came in; leaving early cancels a stream body. */
export async function* readBodyChunks(body: BlobBody): AsyncGenerator<Uint8Array> {
  if (typeof body === 'string') {
    yield new TextEncoder().encode(body);
    return;
  }
  if (body instanceof Uint8Array) {
    yield body;
    return;
  }
  const stream = body instanceof Blob ? body.stream() : body;
  const reader = stream.getReader();
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        return;
      }
      yield toBytes(value);
    }
  } finally {
    // A consumer that stopped early (a failed write) cancels the body: its writer then fails at once
    // instead of waiting for room forever (a pack's TransformStream, a request body).
    if (!ended) await reader.cancel(new Error('the blob store stopped reading')).catch(() => undefined);
    reader.releaseLock();
  }
}

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  throw new TypeError('Blob body streams must yield bytes');
}

/** Byte length of a body whose size is known without reading it. */
export function knownBodySize(body: BlobBody): number | undefined {
  if (typeof body === 'string') return Buffer.byteLength(body, 'utf8');
  if (body instanceof Uint8Array) return body.byteLength;
  if (body instanceof Blob) return body.size;
  return undefined;
}
