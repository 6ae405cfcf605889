import { Elysia } from 'elysia';
import { ZodError } from 'zod';
import type { ErrorBody } from '../../shared/errors.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';

/** Turns anything thrown into the catalogued error body (spec §8); unknown failures leak no internals. */
export function toAppError(error: unknown, log: Logger, context: Record<string, unknown> = {}): AppError {
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

/** The spec's wording: 'Invalid `body`', or the name of the failing query/path parameter. */
function invalidInputMessage(error: ValidationLike): string {
  if (error.type === 'body' || error.type === undefined) return 'Invalid `body`';
  const path = error.valueError?.path;
  const name = Array.isArray(path) ? path[0] : typeof path === 'string' ? path.replace(/^\//, '').split('/')[0] : undefined;
  return `Invalid \`${name || error.type}\``;
}

export function errorHandler(log: Logger) {
  return new Elysia({ name: 'error-handler' }).onError({ as: 'global' }, ({ code, error, request, path }) => {
    switch (code) {
      case 'VALIDATION':
        return errorResponse(new AppError('bad_param', invalidInputMessage(error as ValidationLike)));
      case 'PARSE':
        return errorResponse(new AppError('bad_param', 'Invalid `body`'));
      case 'NOT_FOUND':
        return errorResponse(new AppError('not_found', 'not found'));
      default: {
        const appError = toAppError(error, log, { method: request.method, path });
        const headers: Record<string, string> = appError.code === 'limit_exceeded' ? { 'retry-after': '900' } : {};
        return errorResponse(appError, headers);
      }
    }
  });
}
