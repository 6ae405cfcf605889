import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The path segment that names a package on the play origin. Two kinds, both unguessable without
 * SECRET_KEY (HMAC-SHA256, 192 bits kept):
 * - public `{packageId}.{mac}`: stable for the package, so browsers and CDNs can cache what it serves;
 *   the play server still checks on every request that the package is publicly visible.
 * - signed `{packageId}.{expires}.{mac}` (expires: unix seconds, base 36): for packages only members may
 *   see; dead once expired. The expiry is rounded to a window so one member gets the same URL (and
 *   cache hits) for a while.
 * Package ids are [0-9a-z], so '.' separates unambiguously.
 */
export type PlayToken = { kind: 'public'; packageId: string } | { kind: 'signed'; packageId: string; expiresAt: Date };

/** Signed tokens live between lifetime and lifetime + window. */
export const signedPlayTokenLifetimeMs = 60 * 60_000;
const signedPlayTokenWindowMs = 15 * 60_000;

const macLength = 32; // base64url characters: 192 bits

function macOf(secretKey: string, message: string): string {
  // A key of its own, so no other signature of the app (download URLs, ...) can be replayed here.
  const key = createHmac('sha256', secretKey).update('cartridge play origin v1').digest();
  return createHmac('sha256', key).update(message).digest('base64url').slice(0, macLength);
}

export function createPublicPlayToken(secretKey: string, packageId: string): string {
  return `${packageId}.${macOf(secretKey, `public:${packageId}`)}`;
}

export function createSignedPlayToken(secretKey: string, packageId: string, now = new Date()): { token: string; expiresAt: Date } {
  const windowEnd = Math.ceil(now.getTime() / signedPlayTokenWindowMs) * signedPlayTokenWindowMs;
  const expiresSeconds = Math.floor((windowEnd + signedPlayTokenLifetimeMs) / 1000);
  const expires = expiresSeconds.toString(36);
  return { token: `${packageId}.${expires}.${macOf(secretKey, `signed:${packageId}:${expires}`)}`, expiresAt: new Date(expiresSeconds * 1000) };
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The token's package, or undefined when forged, malformed or expired. */
export function verifyPlayToken(secretKey: string, token: string, now = new Date()): PlayToken | undefined {
  const parts = token.split('.');
  if (parts.some((part) => part.length === 0 || part.length > 64)) return undefined;
  if (parts.length === 2) {
    const [packageId, mac] = parts as [string, string];
    if (!/^[0-9a-z]+$/.test(packageId) || !sameText(mac, macOf(secretKey, `public:${packageId}`))) return undefined;
    return { kind: 'public', packageId };
  }
  if (parts.length === 3) {
    const [packageId, expires, mac] = parts as [string, string, string];
    if (!/^[0-9a-z]+$/.test(packageId) || !/^[0-9a-z]{1,12}$/.test(expires)) return undefined;
    if (!sameText(mac, macOf(secretKey, `signed:${packageId}:${expires}`))) return undefined;
    const expiresAt = new Date(parseInt(expires, 36) * 1000);
    if (!(expiresAt.getTime() > now.getTime())) return undefined;
    return { kind: 'signed', packageId, expiresAt };
  }
  return undefined;
}
