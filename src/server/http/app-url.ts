import type { Config } from '../config.ts';

/**
 * Where clients reach this app, for absolute URLs in replies: PUBLIC_URL (its trailing slashes already
 * dropped by the config), else the request's own origin. Never ends in a slash.
 */
export function appUrlOf(config: Pick<Config, 'publicUrl'>, request: Request | URL): string {
  return config.publicUrl ?? (request instanceof URL ? request : new URL(request.url)).origin;
}
