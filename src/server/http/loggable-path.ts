/**
 * A request path as it may be written to the log: the parts that work as credentials without a token
 * are masked, since anyone reading the log could use them. Signed download URLs
 * (`/api/files/{package}/{kind}/{expires}/{signature}/{name}`, downloads/signed-file-url.ts) carry their
 * signature, and play-origin URLs (`/p/{token}/…`, browser-play/play-token.ts) their token. Queries are
 * never logged at all (a caller may put a token there).
 */
const masks: { pattern: RegExp; replacement: string }[] = [
  { pattern: /^(\/api\/files\/[^/]+\/[^/]+\/\d+\/)[^/]+/, replacement: '$1…' },
  { pattern: /^(\/p\/)[^/]+/, replacement: '$1…' },
];

export function loggablePath(pathname: string): string {
  for (const { pattern, replacement } of masks) {
    if (pattern.test(pathname)) return pathname.replace(pattern, replacement);
  }
  return pathname;
}
