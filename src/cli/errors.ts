import { ApiError, TriedFewTimesError } from '../shared/api/errors.ts';

/** Exit codes, documented in --help and the README. */
export const exitCodes = {
  ok: 0,
  usage: 1,
  auth: 2,
  notFound: 3,
  checksFailed: 4,
  server: 5,
} as const;
export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];

export const exitCodeHelp = `Exit codes:
  0  success
  1  usage error (unknown command or option, bad value, invalid input refused by the server)
  2  not signed in, wrong or expired token, or not allowed (role lacks the action)
  3  project, branch, version or package not found (private things you cannot see are not found too)
  4  package refused before upload: no --tags (without --allow-untagged), or checks warned with --strict
  5  network or server failure after retries (or a refusal such as a quota limit, or the server out of storage space)
With --json a failure is one line of JSON on stderr: {"code","message","details","exitCode"}.`;

/** The code a CliError carries by default: a spec §8 code where one fits, else the CLI's own. */
const defaultCodes: Record<ExitCode, string> = {
  [exitCodes.ok]: 'ok',
  [exitCodes.usage]: 'bad_param',
  [exitCodes.auth]: 'unauthorized',
  [exitCodes.notFound]: 'not_found',
  [exitCodes.checksFailed]: 'checks_failed',
  [exitCodes.server]: 'unexpected_error',
};

export type CliErrorOptions = { code?: string; details?: unknown };

/** A failure that ends the command with a message and an exit code (and a code for --json). */
export class CliError extends Error {
  readonly code: string;
  readonly details: unknown;
  constructor(readonly exitCode: ExitCode, message: string, options: CliErrorOptions = {}) {
    super(message);
    this.name = 'CliError';
    this.code = options.code ?? defaultCodes[exitCode];
    this.details = options.details;
  }
}

const codeExits: Record<string, ExitCode> = {
  wrong_auth: exitCodes.auth,
  unauthorized: exitCodes.auth,
  wrong_credentials: exitCodes.auth,
  insufficient_privileges: exitCodes.auth,
  not_found: exitCodes.notFound,
  bad_param: exitCodes.usage,
};

function exitCodeOfServerError(status: number, code: string | undefined): ExitCode {
  if (code && code in codeExits) return codeExits[code]!;
  if (status === 401 || status === 403) return exitCodes.auth;
  if (status === 404) return exitCodes.notFound;
  return exitCodes.server;
}

export type Failure = { code: string; message: string; details: unknown; exitCode: ExitCode };

/** Any thrown thing → what the CLI prints: the message (or, with --json, all four fields) and the exit code. */
export function describeFailure(error: unknown): Failure {
  if (error instanceof CliError) return { code: error.code, message: error.message, details: error.details ?? null, exitCode: error.exitCode };
  if (error instanceof TriedFewTimesError) return { code: error.code, message: error.message, details: { last: error.last.code, status: error.last.status || null }, exitCode: exitCodes.server };
  if (error instanceof ApiError) {
    // Ctrl-C: the reason the signal was aborted with ('interrupted').
    if (error.code === 'request_aborted' && error.cause instanceof Error) return { code: error.code, message: error.cause.message, details: null, exitCode: exitCodes.server };
    return { code: error.code, message: `${error.summary} (${error.code})`, details: error.details ?? null, exitCode: exitCodeOfServerError(error.status, error.code) };
  }
  return { code: 'unexpected_error', message: error instanceof Error ? error.message : String(error), details: null, exitCode: exitCodes.server };
}

/** With --json a failure is one JSON object on one line of stderr, so a script parses it like the result. */
export function failureText(failure: Failure, json: boolean): string {
  if (json) return `${JSON.stringify({ code: failure.code, message: failure.message, details: failure.details, exitCode: failure.exitCode })}\n`;
  return `cartridge: ${failure.message}\n`;
}
