import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';

/**
 * Where players reach the play origin. PLAY_ORIGIN when set (a reverse proxy or another host maps it to
 * PLAY_PORT of the processes); else this process's own play listener at 127.0.0.1 — a different host
 * than the default PUBLIC_URL (localhost), so the app's host-only session cookie never goes there.
 */
export function defaultPlayOrigin(port: number): string {
  return `http://127.0.0.1:${port}`;
}

/** The port the play listener binds: PLAY_PORT, else PORT+1 (0 stays 0: a free port, as in tests). */
export function playListenPort(config: Config, appPort: number): number {
  if (config.playPort !== undefined) return config.playPort;
  return appPort === 0 ? 0 : appPort + 1;
}

function playOriginOf(config: Config): string {
  if (!config.playOrigin) throw new AppError('unexpected_error', 'The play origin is not running in this process');
  return config.playOrigin;
}

/** `{origin}/p/{token}/{start file}`: the token is the game's root, so relative links inside resolve. */
export function playUrlOf(config: Config, token: string, entrypoint: string[] | null): string {
  const path = (entrypoint ?? []).map(encodeURIComponent).join('/');
  return `${playOriginOf(config)}/p/${token}/${path}`;
}
