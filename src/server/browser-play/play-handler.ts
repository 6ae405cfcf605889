import type { CompressionAlgorithm } from '../../shared/archive/index.ts';
import type { Deps } from '../deps.ts';
import { findPlayablePackage } from '../domains/browser-play/browser-play.service.ts';
import { loggablePath } from '../http/loggable-path.ts';
import { serveRanged } from '../http/range.ts';
import { lookUpPlayFile, streamFileRange } from './play-files.ts';
import { playPreflightHeaders, playSecurityHeaders } from './play-headers.ts';
import { createIndexCache } from './play-index-cache.ts';
import { verifyPlayToken, type PlayToken } from './play-token.ts';

/** Public URLs are stable; revalidation (ETag) after this keeps a package made private from lingering. */
const publicMaxAgeSeconds = 600;

function plain(status: number, text: string, extra: Record<string, string> = {}): Response {
  return new Response(text, {
    status,
    headers: { ...playSecurityHeaders, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...extra },
  });
}

const notFoundResponse = () => plain(404, 'Not found\n');

/** Bun's own extension table (the one Bun.file uses); unknown extensions are application/octet-stream. */
function contentTypeOf(fileName: string): string {
  return Bun.file(`/${fileName}`).type;
}

function etagOf(indexHash: string, path: string): string {
  const digest = new Bun.CryptoHasher('sha256').update(`${indexHash}\0${path}`).digest('base64url');
  return `"${indexHash.slice(0, 16)}-${digest.slice(0, 22)}"`;
}

function cacheControlOf(token: PlayToken, now: number): string {
  if (token.kind === 'public') return `public, max-age=${publicMaxAgeSeconds}`;
  const left = Math.max(0, Math.floor((token.expiresAt.getTime() - now) / 1000));
  return `private, max-age=${Math.min(left, 3600)}`;
}

/** Splits `/p/{token}/{path}`; undefined when malformed (bad escapes, empty or dot segments). */
function parsePlayPath(pathname: string): { token: string; parts: string[]; endsWithSlash: boolean; bare: boolean } | undefined {
  const match = /^\/p\/([^/]+)(\/.*)?$/.exec(pathname);
  if (!match) return undefined;
  const rest = match[2];
  if (rest === undefined) return { token: match[1]!, parts: [], endsWithSlash: false, bare: true };
  const segments = rest.slice(1).split('/');
  const endsWithSlash = segments[segments.length - 1] === '';
  if (endsWithSlash) segments.pop();
  const parts: string[] = [];
  for (const segment of segments) {
    let part: string;
    try {
      part = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    if (part === '' || part === '.' || part === '..' || part.includes('/') || part.includes('\0')) return undefined;
    parts.push(part);
  }
  return { token: match[1]!, parts, endsWithSlash, bare: false };
}

/**
 * The play origin: serves the files of os:web packages under /p/{token}/. It never reads cookies or
 * authorization headers and never sets a cookie: the token in the path is the only credential.
 */
export function createPlayHandler(deps: Deps): (request: Request) => Promise<Response> {
  const indexes = createIndexCache(deps);
  return async (request) => {
    if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: playPreflightHeaders });
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'Method not allowed\n', { allow: 'GET, HEAD, OPTIONS' });
    const url = new URL(request.url);
    if (url.pathname === '/robots.txt') return plain(200, 'User-agent: *\nDisallow: /\n');
    const parsed = parsePlayPath(url.pathname);
    if (!parsed) return notFoundResponse();
    const now = Date.now();
    const token = verifyPlayToken(deps.keys, parsed.token, new Date(now));
    if (!token) return notFoundResponse();
    try {
      const playable = await findPlayablePackage(deps.db, token.packageId, { publicOnly: token.kind === 'public' });
      if (!playable) return notFoundResponse();
      if (parsed.bare) return plain(301, '', { location: `${url.pathname}/${url.search}` });
      const index = await indexes.get(playable.id, playable.indexHash);
      const found = lookUpPlayFile(index, parsed.parts, parsed.endsWithSlash);
      if (found.kind === 'missing') return notFoundResponse();
      if (found.kind === 'directory') return plain(301, '', { location: `${url.pathname}/${url.search}` });
      const { file, path } = found;
      return await serveRanged(request, {
        size: file.size,
        etag: etagOf(playable.indexHash, path),
        headers: { ...playSecurityHeaders, 'content-type': contentTypeOf(file.name), 'cache-control': cacheControlOf(token, now) },
        open: (start, end) => streamFileRange(deps, playable.compression as CompressionAlgorithm, file, start, end),
      });
    } catch (error) {
      deps.log.error('play origin request failed', { path: loggablePath(url.pathname), error: String((error as Error)?.stack ?? error) });
      return plain(500, 'Internal error\n');
    }
  };
}
