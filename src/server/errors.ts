import { httpStatusOfCode, type ServerErrorCode } from '../shared/errors.ts';
import type { RefusalReason } from '../shared/refusal-reasons.ts';

/** The one error type of the server: services throw it, both transports translate it. */
export class AppError extends Error {
  readonly code: ServerErrorCode;
  readonly details?: unknown;
  /** A more precise HTTP status than the code's own (413 and 415 for refused request bodies). */
  private readonly statusOverride?: number;

  constructor(code: ServerErrorCode, message: string, details?: unknown, status?: number) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.statusOverride = status;
  }

  get status(): number {
    return this.statusOverride ?? httpStatusOfCode[this.code];
  }
}

export function notFound(what: string): AppError {
  return new AppError('not_found', `${what} not found`);
}

export function badParam(name: string): AppError {
  return new AppError('bad_param', `Invalid \`${name}\``);
}

/**
 * A refusal a client tells apart from others of its code: details.reason is one of the shared list
 * (src/shared/refusal-reasons.ts), beside any other details. Clients switch on the reason, never on the message.
 */
export function refusal(code: ServerErrorCode, message: string, reason: RefusalReason, details: Record<string, unknown> = {}, status?: number): AppError {
  return new AppError(code, message, { ...details, reason }, status);
}
