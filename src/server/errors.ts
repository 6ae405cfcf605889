import { httpStatusOfCode, type ServerErrorCode } from '../shared/errors.ts';

/** The one error type of the server: services throw it, both transports translate it. */
export class AppError extends Error {
  readonly code: ServerErrorCode;
  readonly details?: unknown;

  constructor(code: ServerErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return httpStatusOfCode[this.code];
  }
}

export function notFound(what: string): AppError {
  return new AppError('not_found', `${what} not found`);
}

export function badParam(name: string): AppError {
  return new AppError('bad_param', `Invalid \`${name}\``);
}
