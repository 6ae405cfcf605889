import { HelperError } from '../errors.ts';
import { parseOrigin } from '../origins.ts';

/** DNS rebinding: a page of evil.example resolved to 127.0.0.1 still says `Host: evil.example`. Only loopback names pass. */
export function checkHost(request: Request, port: number): void {
  const host = request.headers.get('host');
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
    throw new HelperError('bad_host', `Refused Host ${JSON.stringify(host ?? '').slice(0, 200)}: the helper answers only 127.0.0.1:${port} and localhost:${port}`);
  }
}

/**
 * A page of an untrusted origin is told so in a reply it can read (the exact origin echoed, like a
 * trusted page): the page then shows the command that trusts it, instead of "not detected". The
 * cost, accepted and documented in docs/en/local-app.md: any site can tell that the helper runs.
 * Nothing else is answered to it: every method is refused.
 */
export type Caller = { kind: 'program' } | { kind: 'page'; origin: string } | { kind: 'untrusted'; origin: string };

/**
 * Who calls: a web page (Origin header) that must be trusted, or a local program (no Origin: browsers
 * always send one on POST and on preflights, so its absence means curl, a script or a test — code
 * already running as the user, which the helper cannot protect against anyway).
 */
export function callerOf(request: Request, trusted: readonly string[]): Caller {
  const header = request.headers.get('origin');
  if (header === null) return { kind: 'program' };
  const origin = parseOrigin(header);
  if (origin === undefined || origin !== header) {
    throw new HelperError('bad_origin', 'Refused a request from a page without a usable origin (a sandboxed frame, a file: page or an extension)', { origin: header.slice(0, 200) });
  }
  if (!trusted.includes(origin)) return { kind: 'untrusted', origin };
  return { kind: 'page', origin };
}

export function notTrusted(origin: string): HelperError {
  return new HelperError('not_trusted', `This site (${origin}) is not trusted by the local app yet: run  cartridge-helper trust ${origin}`, { origin });
}

/** CORS for a trusted page: its exact origin, never `*`. Every reply varies by Origin. */
export function corsHeaders(caller: Caller | undefined): Record<string, string> {
  if (caller === undefined || caller.kind === 'program') return { vary: 'Origin' };
  return { 'access-control-allow-origin': caller.origin, vary: 'Origin' };
}

/**
 * The preflight's answer for a page: POST with a JSON body, and Chrome's Private Network Access (a
 * public page calling a loopback address) allowed. An untrusted page gets it too, so that its POST
 * reaches the not_trusted refusal it can read.
 */
export function preflightHeaders(caller: Caller): Record<string, string> {
  if (caller.kind === 'program') return { allow: 'POST, OPTIONS', vary: 'Origin' };
  return {
    ...corsHeaders(caller),
    'access-control-allow-methods': 'POST',
    'access-control-allow-headers': 'content-type',
    'access-control-max-age': '600',
    'access-control-allow-private-network': 'true',
  };
}
