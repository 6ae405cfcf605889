import { timingSafeEqual } from 'node:crypto';
import { hashToken } from '../crypto/index.ts';
import { AppError } from '../errors.ts';

/**
 * The upload token rule of every upload that goes through the part protocol (packages, content images):
 * the SHA-256 of `token` must equal the stored one (compared in constant time), else wrong_auth
 * 'Invalid `token`'; past its expiry it is wrong_auth with `options.expired`, unless allowExpired.
 */
export function verifyUploadToken(
  stored: { tokenHash: string | null; expiresAt: Date | null },
  token: string,
  options: { allowExpired?: boolean; expired: string },
): void {
  const given = Buffer.from(hashToken(token));
  const expected = Buffer.from(stored.tokenHash ?? '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new AppError('wrong_auth', 'Invalid `token`');
  if (!options.allowExpired && (!stored.expiresAt || stored.expiresAt.getTime() < Date.now())) throw new AppError('wrong_auth', options.expired);
}

/** A fresh upload token (256 random bits): shown once in uploadInfo, only its SHA-256 (hashToken) is stored. */
export function newUploadToken(): string {
  return `cu_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')}`;
}
