import { and, eq, sql } from 'drizzle-orm';
import type { PartDescriptor } from '../../../../shared/schemas/packages.ts';
import { uploadParts } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { AppError } from '../../../errors.ts';
import { parsePartQuery } from '../../../part-uploads/part-query.ts';
import { verifyingStream } from '../../../part-uploads/verifying-stream.ts';
import { partKey } from '../blob-keys.ts';
import { findPackageRow } from '../records/package-rows.ts';
import { checkUploadToken } from './upload-token.ts';

/**
 * PUT /api/uploads/{package}?token&part&hash: streams one part into storage while hashing. A part
 * starting at or past the declared size, a body longer than the part may be (partSize, or what is left
 * of the declared size), or a SHA-1 that differs is bad_param and stores nothing; a package that is no
 * longer uploading is already_finalized. Sending the same part again replaces it (idempotent).
 */
export async function uploadPart(deps: Deps, packageId: string, rawQuery: unknown, body: ReadableStream<Uint8Array> | null): Promise<PartDescriptor> {
  const query = parsePartQuery(rawQuery);
  await checkUploadToken(deps.db, packageId, query.token);
  const row = await findPackageRow(deps.db, packageId);
  if (!row) throw new AppError('not_found', 'package not found');
  if (row.status !== 'uploading') throw new AppError('already_finalized', 'The package is already finalized');
  const partSize = deps.config.uploads.partSize;
  const start = query.part * partSize;
  if (start >= row.declaredSize) throw new AppError('bad_param', 'Invalid `part`: it starts past the declared size');
  const maxSize = Math.min(partSize, row.declaredSize - start);
  let size = -1;
  await deps.storage.put(partKey(packageId, query.part), verifyingStream(body ?? new Blob([]).stream(), maxSize, query.hash, (n) => (size = n)));
  if (size < 0) throw new AppError('bad_param', 'Invalid `hash`');
  await deps.db
    .insert(uploadParts)
    .values({ packageId, part: query.part, sha1: query.hash, size })
    .onConflictDoUpdate({ target: [uploadParts.packageId, uploadParts.part], set: { sha1: query.hash, size, createdAt: sql`now()` } });
  // A finalize that won meanwhile deletes parts only once; a part landing after it would be an orphan.
  const after = await findPackageRow(deps.db, packageId);
  if (after?.status !== 'uploading') {
    await deps.storage.delete(partKey(packageId, query.part));
    await deps.db.delete(uploadParts).where(and(eq(uploadParts.packageId, packageId), eq(uploadParts.part, query.part)));
    throw new AppError('already_finalized', 'The package is already finalized');
  }
  return { part: query.part, hash: query.hash, size };
}
