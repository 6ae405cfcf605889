import { LOCAL_HELPER_PORT } from '../../shared/schemas/local-helper.ts';
import type { Config } from '../config.ts';

/**
 * Headers of every response of the app's origin (the play origin has its own, play/play-headers.ts):
 * no framing by any other page (clickjacking of signed-in screens), no MIME sniffing, referrers cut
 * to the origin across sites, the app's window kept from pages it opens, and HSTS when served over
 * https.
 */
export function baseSecurityHeaders(config: Config): Record<string, string> {
  const headers: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'cross-origin-opener-policy': 'same-origin',
  };
  if (config.publicUrl?.startsWith('https:')) headers['strict-transport-security'] = 'max-age=31536000; includeSubDomains';
  return headers;
}

/** The SHA-256 CSP sources of a page's inline scripts (the theme snippet that must run before first paint). */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
    const digest = new Bun.CryptoHasher('sha256').update(match[1]!).digest('base64');
    hashes.push(`'sha256-${digest}'`);
  }
  return hashes;
}

/**
 * The web client's policy: its own scripts (plus the hashed inline theme snippet) and styles only;
 * games only in frames of the play origin; user images from anywhere over https (markdown), no
 * plugins, no <base>, forms only to this origin, and no page may frame it. Requests go to this origin
 * and to the local companion app on loopback (spec §7 'Local helper', the /local page and Install).
 */
export function clientPagePolicy(config: Config, scriptHashes: readonly string[]): string {
  const frames = config.playOrigin ? new URL(config.playOrigin).origin : "'none'";
  return [
    "default-src 'self'",
    `script-src 'self' ${scriptHashes.join(' ')}`.trim(),
    "style-src 'self'",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data:",
    `connect-src 'self' http://127.0.0.1:${LOCAL_HELPER_PORT}`,
    "media-src 'self' blob:",
    "worker-src 'self' blob:",
    `frame-src ${frames}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** API answers are data, never documents: nothing they contain may run or be framed. */
export const apiPolicy = "default-src 'none'; frame-ancestors 'none'; sandbox";

/** The response with these headers set (a copy when its headers are immutable, as for redirects). */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  try {
    for (const [name, value] of Object.entries(headers)) if (!response.headers.has(name)) response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    for (const [name, value] of Object.entries(headers)) if (!copy.headers.has(name)) copy.headers.set(name, value);
    return copy;
  }
}
