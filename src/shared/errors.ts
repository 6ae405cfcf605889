/** Server error codes of spec §8: a closed union, each mapped once to an HTTP status. */
export const serverErrorCodes = [
  'not_found',
  'name_conflict',
  'bad_param',
  'wrong_auth',
  'unauthorized',
  'wrong_credentials',
  'wrong_provider',
  'insufficient_privileges',
  'not_empty',
  'limit_exceeded',
  'already_member',
  'not_finalized',
  'already_finalized',
  'unexpected_patch',
  'timeout',
  'not_patch',
  'not_supported',
  'out_of_storage',
  'unexpected_error',
] as const;

export type ServerErrorCode = (typeof serverErrorCodes)[number];

export const httpStatusOfCode: Record<ServerErrorCode, number> = {
  not_found: 404,
  name_conflict: 409,
  bad_param: 400,
  wrong_auth: 401,
  unauthorized: 401,
  wrong_credentials: 401,
  wrong_provider: 400,
  insufficient_privileges: 403,
  not_empty: 409,
  limit_exceeded: 429,
  already_member: 409,
  not_finalized: 409,
  already_finalized: 409,
  unexpected_patch: 409,
  timeout: 503,
  not_patch: 409,
  not_supported: 501,
  out_of_storage: 507,
  unexpected_error: 500,
};

/** The sentence of `out_of_storage`, the same wherever it is answered (spec §8). */
export const outOfStorageMessage = 'the server is out of storage space';

/** The body every failing REST call answers with, and what tRPC carries in `data`. */
export type ErrorBody = { code: ServerErrorCode; message: string; details?: unknown };
