import { eq } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { packages } from '../../../db/schema/index.ts';
import { AppError } from '../../../errors.ts';
import { verifyUploadToken } from '../../../part-uploads/upload-token.ts';

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
  verifyUploadToken(row, token, { ...options, expired: 'The upload token expired: create the package again' });
}
