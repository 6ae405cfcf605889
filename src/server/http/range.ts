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
 * Bun.serve (1.4.5) drops a handler's Content-Length on every stream body and sends it chunked
 * (oven-sh/bun#10507). Clients that need the length, such as aria2c's web-seed downloader (it fails
 * with "Size mismatch") and browsers' progress bars, then get none. Bodies up to this size, which
 * covers a BitTorrent piece (pieceLengthFor caps them at 16 MiB) and most ranged requests, are
 * therefore collected first and sent with their length; larger ones stream chunked (memory stays
 * flat) until Bun honours the header.
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
  const stream = await body.open(start, end);
  if (end - start > bufferedBodyLimit) return new Response(stream, { status, headers });
  return new Response((await new Response(stream).bytes()) as Uint8Array<ArrayBuffer>, { status, headers });
}

/** RFC 6266 attachment with an ASCII fallback and the exact UTF-8 name in RFC 5987 filename*. */
export function attachmentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
