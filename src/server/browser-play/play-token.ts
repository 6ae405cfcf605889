import { signingPurposes, type Keyring } from '../crypto/index.ts';

/**
 * The path segment that names a package on the play origin. Two kinds, both unguessable without
 * SECRET_KEY (the play-path signer's HMAC-SHA256):
 * - public `{packageId}.{mac}`: stable for the package, so browsers and CDNs can cache what it serves;
 *   the play server still checks on every request that the package is publicly visible.
 * - signed `{packageId}.{expires}.{mac}` (expires: unix seconds, base 36): for packages only members may
 *   see; dead once expired. The expiry is rounded to a window so one member gets the same URL (and
 *   cache hits) for a while.
 * Package ids are [0-9a-z], so '.' separates unambiguously.
 */
export type PlayToken = { kind: 'public'; packageId: string } | { kind: 'signed'; packageId: string; expiresAt: Date };

/** Signed tokens live between lifetime and lifetime + window. */
const signedPlayTokenLifetimeMs = 60 * 60_000;
const signedPlayTokenWindowMs = 15 * 60_000;

const publicMessageOf = (packageId: string) => `public:${packageId}`;
const signedMessageOf = (packageId: string, expires: string) => `signed:${packageId}:${expires}`;

export function createPublicPlayToken(keys: Keyring, packageId: string): string {
  return `${packageId}.${keys.signer(signingPurposes.playPath).sign(publicMessageOf(packageId))}`;
}

export function createSignedPlayToken(keys: Keyring, packageId: string, now = new Date()): { token: string; expiresAt: Date } {
  const windowEnd = Math.ceil(now.getTime() / signedPlayTokenWindowMs) * signedPlayTokenWindowMs;
  const expiresSeconds = Math.floor((windowEnd + signedPlayTokenLifetimeMs) / 1000);
  const expires = expiresSeconds.toString(36);
  const mac = keys.signer(signingPurposes.playPath).sign(signedMessageOf(packageId, expires));
  return { token: `${packageId}.${expires}.${mac}`, expiresAt: new Date(expiresSeconds * 1000) };
}

/** The token's package, or undefined when forged, malformed or expired. */
export function verifyPlayToken(keys: Keyring, token: string, now = new Date()): PlayToken | undefined {
  const signer = keys.signer(signingPurposes.playPath);
  const parts = token.split('.');
  if (parts.some((part) => part.length === 0 || part.length > 64)) return undefined;
  if (parts.length === 2) {
    const [packageId, mac] = parts as [string, string];
    if (!/^[0-9a-z]+$/.test(packageId) || !signer.verify(publicMessageOf(packageId), mac)) return undefined;
    return { kind: 'public', packageId };
  }
  if (parts.length === 3) {
    const [packageId, expires, mac] = parts as [string, string, string];
    if (!/^[0-9a-z]+$/.test(packageId) || !/^[0-9a-z]{1,12}$/.test(expires)) return undefined;
    if (!signer.verify(signedMessageOf(packageId, expires), mac)) return undefined;
    const expiresAt = new Date(parseInt(expires, 36) * 1000);
    if (!(expiresAt.getTime() > now.getTime())) return undefined;
    return { kind: 'signed', packageId, expiresAt };
  }
  return undefined;
}
