import { Elysia } from 'elysia';
import { ZodError } from 'zod';
import type { ErrorBody } from '../../shared/errors.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { isOutOfStorage, outOfStorage, storageFailureText } from '../storage/out-of-storage.ts';
import { loggablePath } from './loggable-path.ts';
import { trpcErrorResponse } from '../trpc/error-mapping.ts';

const trpcPrefix = '/trpc/';

/** Turns anything thrown into the catalogued error body (spec §8); unknown failures leak no internals. */
export function toAppError(error: unknown, log: Logger, context: Record<string, unknown> = {}): AppError {
  if (isOutOfStorage(error)) {
    // The operator's to fix: said in the log with what failed, and to the caller in one sentence.
    log.error('out of storage', { ...context, error: storageFailureText(error) });
    return outOfStorage();
  }
  if (error instanceof AppError) return error;
  if (error instanceof ZodError) return new AppError('bad_param', `Invalid \`${String(error.issues[0]?.path[0] ?? 'body')}\``);
  log.error('unexpected error', { ...context, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return new AppError('unexpected_error', 'Unexpected error');
}

export function errorResponse(error: AppError, headers: Record<string, string> = {}): Response {
  const body: ErrorBody = { code: error.code, message: error.message };
  if (error.details !== undefined) body.details = error.details;
  return Response.json(body, { status: error.status, headers });
}

type ValidationLike = { type?: string; valueError?: { path?: unknown } };

/** The first segment of a validation issue's path: a zod path array or a TypeBox JSON pointer. */
function firstPathSegment(path: unknown): string | undefined {
  const first = Array.isArray(path) ? path[0] : typeof path === 'string' ? path.replace(/^\//, '').split('/')[0] : undefined;
  const key = typeof first === 'object' && first !== null && 'key' in first ? (first as { key: unknown }).key : first;
  return key === undefined || key === '' ? undefined : String(key);
}

/**
 * The spec's wording, naming the failing field as tRPC and the services do: 'Invalid `title`', the
 * query or path parameter ('Invalid `token`'), or 'Invalid `body`' when the body as a whole is wrong.
 */
function invalidInputMessage(error: ValidationLike): string {
  const name = firstPathSegment(error.valueError?.path);
  if (error.type === 'body' || error.type === undefined) return `Invalid \`${name ?? 'body'}\``;
  return `Invalid \`${name || error.type}\``;
}

export function errorHandler(log: Logger) {
  return new Elysia({ name: 'error-handler' }).onError({ as: 'global' }, ({ code, error, request, path }) => {
    switch (code) {
      case 'VALIDATION':
        return errorResponse(new AppError('bad_param', invalidInputMessage(error as ValidationLike)));
      case 'PARSE': {
        // The body guard's refusals (413, 415, depth) arrive wrapped by Elysia's parse step.
        const cause = (error as Error).cause;
        const refusal = cause instanceof AppError ? cause : new AppError('bad_param', 'Invalid `body`');
        return path.startsWith(trpcPrefix) ? trpcErrorResponse(refusal, path.slice(trpcPrefix.length)) : errorResponse(refusal);
      }
      case 'NOT_FOUND':
        return errorResponse(new AppError('not_found', 'not found'));
      default: {
        const appError = toAppError(error, log, { method: request.method, path: loggablePath(path) });
        const headers: Record<string, string> = appError.status === 429 ? { 'retry-after': '900' } : {};
        return errorResponse(appError, headers);
      }
    }
  });
}
