/**
 * HTTP Range (RFC 9110 §14) for generated and stored downloads: one byte range per request. A
 * multi-range request is answered with the whole body (200), which the RFC allows and every client
 * handles; multipart/byteranges would buy nothing for the archive, ZIP and web-seed clients we serve.
 */
export type RangeRequest =
  | { kind: 'whole' }
  | { kind: 'range'; start: number; end: number } // end inclusive
  | { kind: 'unsatisfiable' };

/** Parses a Range header against a body of `size` bytes. */
export function parseRange(header: string | null, size: number): RangeRequest {
  if (header === null) return { kind: 'whole' };
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  // Other units, malformed values and several ranges are ignored: the whole body is sent.
  if (!match) return { kind: 'whole' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    const suffix = Number(last);
    if (!Number.isSafeInteger(suffix)) return { kind: 'whole' };
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? Number.MAX_SAFE_INTEGER : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', start, end: Math.min(end, size - 1) };
}

/**
 * STACK NOTE, Bun 1.4.5 (oven-sh/bun#10507, open; fixes #27262 and #35682 closed unmerged): Bun.serve
 * removes a handler's Content-Length from every ReadableStream body and sends it chunked. Measured on
 * raw Bun.serve, without Elysia (so Elysia's response mapping is not the cause), for bodies of 8, 15,
 * 16, 17 and 40 MiB: default pull streams, `type: 'bytes'` streams, `type: 'direct'` streams and async
 * generators all went out chunked without the header. The only bodies that keep a length are in-memory
 * ones (Blob, bytes: the length is the buffer's) and a regular Bun.file or a slice of one (sendfile).
 * node:http's createServer inside Bun does honour the header, but it cannot share the one port with
 * Bun.serve (which the HTML bundle routes need).
 *
 * Without a length, aria2c's web seed fails with "Size mismatch Expected:<size> Actual:0" and browsers
 * show no progress total. So a generated body is sent one of three ways: from a local file when the
 * body has one (`file`: ZIPs and archives are kept in a disk cache, storage/file-cache.ts), collected
 * in memory up to this size (a BitTorrent piece: pieceLengthFor caps them at 16 MiB), and streamed
 * chunked above it only when no file can be had within fileWaitMs (the cache is off or too small,
 * or the file is still being made: package_prepare makes the ZIP's right after finalize).
 * tests/api/packages-downloads.test.ts checks the Bun behaviour: when that check fails, Bun honours
 * the header and the in-memory step can go.
 */
export const bufferedBodyLimit = 16 * 1024 * 1024;

export type RangedBody = {
  size: number;
  /** A strong validator ("..." with quotes); also answers If-None-Match and If-Range. */
  etag: string;
  /** Headers every reply carries (content type, disposition, CORS, caching). */
  headers: Record<string, string>;
  /** Bytes start..end (end exclusive), generated or read lazily. */
  open(start: number, end: number): Promise<ReadableStream<Uint8Array>> | ReadableStream<Uint8Array>;
  /**
   * A local file holding exactly these bytes, if there is one; `make`: create it when missing (asked
   * for ranges too large to collect in memory). Undefined: serve from `open`.
   */
  file?(make: boolean): Promise<string | undefined>;
};

/** The reply to GET or HEAD of a body that supports ranges: 200, 206, 304 or 416. */
export async function serveRanged(request: Request, body: RangedBody): Promise<Response> {
  const headers = new Headers(body.headers);
  headers.set('accept-ranges', 'bytes');
  headers.set('etag', body.etag);
  const ifNoneMatch = request.headers.get('if-none-match');
  if (ifNoneMatch !== null && ifNoneMatch.split(',').some((tag) => tag.trim() === body.etag || tag.trim() === '*')) {
    return new Response(null, { status: 304, headers });
  }
  let range = parseRange(request.headers.get('range'), body.size);
  const ifRange = request.headers.get('if-range');
  // If-Range with another validator (or a date, which we cannot compare strongly): send it all.
  if (ifRange !== null && ifRange.trim() !== body.etag) range = { kind: 'whole' };
  if (range.kind === 'unsatisfiable') {
    headers.set('content-range', `bytes */${body.size}`);
    headers.set('content-length', '0');
    return new Response(null, { status: 416, headers });
  }
  const start = range.kind === 'range' ? range.start : 0;
  const end = range.kind === 'range' ? range.end + 1 : body.size;
  headers.set('content-length', String(end - start));
  const status = range.kind === 'range' ? 206 : 200;
  if (range.kind === 'range') headers.set('content-range', `bytes ${start}-${end - 1}/${body.size}`);
  if (request.method === 'HEAD' || end === start) return new Response(null, { status, headers });
  const path = await localFile(body, end - start > bufferedBodyLimit);
  if (path) return new Response(Bun.file(path).slice(start, end), { status, headers });
  const stream = await body.open(start, end);
  if (end - start > bufferedBodyLimit) return new Response(stream, { status, headers });
  return new Response((await new Response(stream).bytes()) as Uint8Array<ArrayBuffer>, { status, headers });
}

/**
 * How long a large request waits for its local file to be made before it is streamed instead (the
 * file goes on being made for the requests after it): a reply must start well within the server's
 * idle timeout, and a person clicking Download should see bytes soon.
 */
const fileWaitMs = 5000;

async function localFile(body: RangedBody, make: boolean): Promise<string | undefined> {
  if (!body.file) return undefined;
  // A file that cannot be made (disk full, a blob unreadable just now) is no reason to fail: stream.
  const making = body.file(make).catch(() => undefined);
  if (!make) return making;
  let timer: Parameters<typeof clearTimeout>[0];
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, fileWaitMs);
  });
  try {
    return await Promise.race([making, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** RFC 6266 attachment with an ASCII fallback and the exact UTF-8 name in RFC 5987 filename*. */
export function attachmentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
