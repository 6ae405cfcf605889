import { timingSafeEqual } from 'node:crypto';
import { AppError } from '../../../errors.ts';
import { hashToken } from '../../../crypto/index.ts';
import { packages } from '../../../db/schema/index.ts';
import type { Executor } from '../../../db/client.ts';
import { eq } from 'drizzle-orm';

/**
 * Upload tokens authorise part PUTs and finalize without a bearer header. An unknown package is
 * not_found; a token that does not match, or that expired (UPLOAD_HOURS after creation), is wrong_auth
 * (401): the caller holds the wrong credential for a thing that exists in its project.
 */
export async function checkUploadToken(db: Executor, packageId: string, token: string, options: { allowExpired?: boolean } = {}): Promise<void> {
  const [row] = await db
    .select({ tokenHash: packages.uploadTokenHash, expiresAt: packages.uploadExpiresAt })
    .from(packages)
    .where(eq(packages.id, packageId));
  if (!row) throw new AppError('not_found', 'package not found');
  const given = Buffer.from(hashToken(token));
  const expected = Buffer.from(row.tokenHash ?? '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new AppError('wrong_auth', 'Invalid `token`');
  if (!options.allowExpired && (!row.expiresAt || row.expiresAt.getTime() < Date.now())) {
    throw new AppError('wrong_auth', 'The upload token expired: create the package again');
  }
}
