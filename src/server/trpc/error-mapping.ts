import { TRPCError } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { ServerErrorCode } from '../../shared/errors.ts';
import { AppError } from '../errors.ts';

const trpcCodeOfStatus: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  501: 'NOT_IMPLEMENTED',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  // tRPC has no code for it: the reply's status comes from data.httpStatus (mount.ts).
  507: 'INTERNAL_SERVER_ERROR',
};

export function trpcErrorOf(error: AppError): TRPCError {
  return new TRPCError({ code: trpcCodeOfStatus[error.status] ?? 'INTERNAL_SERVER_ERROR', message: error.message, cause: error });
}

type IssueLike = { path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> };

/** The catalogued code, message and details a tRPC error carries in `data`, the same as REST would answer. */
export function appErrorOfTrpc(error: TRPCError): { code: ServerErrorCode; message: string; details?: unknown } {
  const cause = error.cause;
  if (cause instanceof AppError) return { code: cause.code, message: cause.message, details: cause.details };
  const issues = (cause as { issues?: IssueLike[] } | undefined)?.issues;
  if (error.code === 'BAD_REQUEST' && Array.isArray(issues)) {
    const first = issues[0]?.path?.[0];
    const name = typeof first === 'object' && first !== null ? String(first.key) : first === undefined ? 'body' : String(first);
    return { code: 'bad_param', message: `Invalid \`${name}\`` };
  }
  if (error.code === 'BAD_REQUEST' || error.code === 'PARSE_ERROR') return { code: 'bad_param', message: 'Invalid `body`' };
  if (error.code === 'NOT_FOUND') return { code: 'not_found', message: 'not found' };
  return { code: 'unexpected_error', message: 'Unexpected error' };
}

/**
 * A tRPC error reply made outside tRPC (the body guard refuses a call before tRPC reads it), in the
 * shape the error formatter gives every other failure, so tRPC clients read its code and status.
 */
export function trpcErrorResponse(error: AppError, procedurePath: string): Response {
  const key = trpcCodeOfStatus[error.status] ?? 'BAD_REQUEST';
  const data: Record<string, unknown> = { code: error.code, httpStatus: error.status, path: procedurePath };
  if (error.details !== undefined) data.details = error.details;
  return Response.json({ error: { message: error.message, code: TRPC_ERROR_CODES_BY_KEY[key], data } }, { status: error.status });
}
