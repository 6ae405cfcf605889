import type { Config } from '../config.ts';

const sessionCookieName = 'cartridge_session';

/** HttpOnly so page scripts (and games) can never read it; only GET /auth/session turns it into a bearer. */
export function sessionCookie(config: Config, token: string, expires: Date): string {
  const secure = config.publicUrl?.startsWith('https:') ? '; Secure' : '';
  return `${sessionCookieName}=${token}; Path=/; HttpOnly; SameSite=Lax; Expires=${expires.toUTCString()}${secure}`;
}

export function clearedSessionCookie(config: Config): string {
  return sessionCookie(config, '', new Date(0));
}

export function sessionTokenFromCookie(cookieHeader: string | null | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === sessionCookieName) return rest.join('=') || undefined;
  }
  return undefined;
}
