/**
 * Headers of every play-origin reply. The CSP sandbox without allow-same-origin gives the game an
 * opaque origin even when opened on its own: it can run scripts, lock the pointer, open popups (which
 * inherit the sandbox), submit forms, show dialogs and download, but has no cookies, no storage and no
 * same-origin access to anything, the app's frames included. No default-src: games load their own
 * files and often CDNs; keeping them away from the app is the separate origin's job, not a resource
 * allow-list's.
 */
const playSandbox = 'sandbox allow-scripts allow-pointer-lock allow-popups allow-forms allow-modals allow-downloads';

export const playSecurityHeaders: Record<string, string> = {
  'content-security-policy': playSandbox,
  // The app's pages embed these files from another origin.
  'cross-origin-resource-policy': 'cross-origin',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  // Cross-origin isolation for games opened on their own (SharedArrayBuffer: Godot 4 and Unity
  // threads). Harmless otherwise: COOP is ignored inside a frame, and credentialless still loads
  // no-cors CDN files (without cookies). Embedded in the app, isolation would also need the app page
  // to send COOP/COEP and the iframe allow="cross-origin-isolated". Nested cross-origin iframes
  // (ads, videos) inside a game need COEP of their own.
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'credentialless',
  // An opaque origin fetching its own files (fetch, XHR, module scripts, WebAssembly.instantiateStreaming)
  // is a cross-origin request: without this the game could not load its own data. No credentials.
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'content-length, content-range, accept-ranges, etag',
};

/** Answers CORS preflights (a game sending custom headers with fetch). */
export const playPreflightHeaders: Record<string, string> = {
  ...playSecurityHeaders,
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': '*',
  'access-control-max-age': '86400',
};
