import { outOfStorageMessage } from '../../shared/errors.ts';
import { AppError } from '../errors.ts';

/*
 * A full disk is one answer, out_of_storage (507) with one sentence, wherever in an error's cause
 * chain it shows: the file store throws it itself; the REST error handler (http/error-handler.ts) and
 * tRPC's mapErrors (trpc/init.ts) turn any other into it and log `out of storage`. Clients (ApiError.retryable) do
 * not retry it.
 */

/** Errno codes of a filesystem that has no room left (a full disk, a user's quota). */
const fullFilesystemCodes = new Set(['ENOSPC', 'EDQUOT']);
/** PostgreSQL's disk_full (SQLSTATE 53100). */
const fullDatabaseStates = new Set(['53100']);
/** An S3 look-alike whose disks are full (MinIO). */
const fullBucketCodes = new Set(['XMinioStorageFull']);

function codeOf(error: object): unknown {
  return 'code' in error ? error.code : undefined;
}

/**
 * Whether `error` (or one of its causes: drizzle and the stores wrap what they catch) says storage is
 * full: a file write's ENOSPC, the database's disk_full, a bucket that refuses for space.
 */
export function isOutOfStorage(error: unknown): boolean {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 8; depth++) {
    if (current instanceof AppError) return current.code === 'out_of_storage';
    const code = codeOf(current);
    if (typeof code === 'string' && (fullFilesystemCodes.has(code) || fullDatabaseStates.has(code) || fullBucketCodes.has(code))) return true;
    if ('errno' in current && current.errno === -28) return true; // ENOSPC as Bun reports some writes
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The catalogued refusal (507) that stands for any out-of-storage failure. */
export function outOfStorage(cause?: unknown): AppError {
  const error = new AppError('out_of_storage', outOfStorageMessage);
  if (cause !== undefined) (error as { cause?: unknown }).cause = cause;
  return error;
}

/** What failed, for the log: the system's own message (the path and errno) under our sentence. */
export function storageFailureText(error: unknown): string {
  let current = error;
  while (current instanceof AppError && (current as { cause?: unknown }).cause !== undefined) current = (current as { cause?: unknown }).cause;
  return current instanceof Error ? current.message : String(current);
}
