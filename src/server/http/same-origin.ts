import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';

/**
 * Browsers say where a request comes from (Sec-Fetch-Site, Origin); programs such as the CLI send
 * neither and are not concerned. A request another site's page made — a hidden form that signs the
 * victim in as the attacker, or out — is refused on the routes that set or clear the session cookie.
 */
export function isCrossSiteRequest(config: Config, request: Request): boolean {
  // Browsers that send Sec-Fetch-Site (no page can forge it) are judged by it alone: it stays right
  // behind a proxy that rewrites the Host header. Older ones are judged by Origin.
  const site = request.headers.get('sec-fetch-site');
  if (site !== null) return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.get('origin');
  if (origin === null) return false;
  const allowed = new Set([new URL(request.url).origin]);
  if (config.publicUrl) allowed.add(new URL(config.publicUrl).origin);
  return !allowed.has(origin);
}

export function crossSiteRefused(): AppError {
  return new AppError('insufficient_privileges', 'Cross-site request refused');
}

export function assertSameOrigin(config: Config, request: Request): void {
  if (isCrossSiteRequest(config, request)) throw crossSiteRefused();
}
