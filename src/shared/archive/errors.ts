/** Archive failures (spec §8 plus what the library needs). Every failure of the library is one of these. */
export const archiveErrorCodes = [
  'path_not_directory',
  'file_exists',
  'wrong_magic',
  'wrong_index_hash',
  'wrong_index_size',
  'too_many_entries',
  'invalid_entry',
  'archive_ended',
  'archive_fetch_failed',
  'wrong_chunk_hash',
  'invalid_path',
  'invalid_option',
  'missing_chunk',
  'source_changed',
  'source_read_failed',
  'path_outside_target',
  'write_failed',
] as const;

export type ArchiveErrorCode = (typeof archiveErrorCodes)[number];

export type ArchiveErrorDetails = { path?: string; status?: number; cause?: unknown };

export class ArchiveError extends Error {
  readonly code: ArchiveErrorCode;
  readonly path?: string;
  readonly status?: number;

  constructor(code: ArchiveErrorCode, message: string, details: ArchiveErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ArchiveError';
    this.code = code;
    if (details.path !== undefined) this.path = details.path;
    if (details.status !== undefined) this.status = details.status;
  }
}

export function isArchiveError(value: unknown): value is ArchiveError {
  return value instanceof ArchiveError;
}

/** Turns anything thrown inside the library into an ArchiveError (RangeError from a hostile size, ...). */
export function toArchiveError(error: unknown, code: ArchiveErrorCode, message: string, path?: string): ArchiveError {
  if (error instanceof ArchiveError) return error;
  const detail = error instanceof Error ? `: ${error.message}` : '';
  return new ArchiveError(code, message + detail, path === undefined ? { cause: error } : { cause: error, path });
}
