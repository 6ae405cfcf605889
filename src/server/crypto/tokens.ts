/**
 * Bearer tokens are 256 random bits; only their SHA-256 is stored, so a database leak reveals none.
 * Prefixes: cs session, ct API token, ci invite, xs/xf external sign-in start/finish, cp cloud-play
 * player (one session's init/connect/state/stop), cm cloud-play host machine.
 */
export function generateToken(prefix: 'cs' | 'ct' | 'ci' | 'xs' | 'xf' | 'cp' | 'cm'): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `${prefix}_${Buffer.from(bytes).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return new Bun.CryptoHasher('sha256').update(token).digest('hex');
}
