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
  5  network or server failure after retries (or a refusal such as a quota limit, or the server out of storage space)`;

/** A failure that ends the command with a message and an exit code. */
export class CliError extends Error {
  constructor(readonly exitCode: ExitCode, message: string) {
    super(message);
    this.name = 'CliError';
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

export function exitCodeOfServerError(status: number, code: string | undefined): ExitCode {
  if (code && code in codeExits) return codeExits[code]!;
  if (status === 401 || status === 403) return exitCodes.auth;
  if (status === 404) return exitCodes.notFound;
  return exitCodes.server;
}

/** Any thrown thing → the exit code and message the CLI prints. */
export function describeFailure(error: unknown): { exitCode: ExitCode; message: string } {
  if (error instanceof CliError) return { exitCode: error.exitCode, message: error.message };
  if (error instanceof TriedFewTimesError) return { exitCode: exitCodes.server, message: error.message };
  if (error instanceof ApiError) {
    // Ctrl-C: the reason the signal was aborted with ('interrupted').
    if (error.code === 'request_aborted' && error.cause instanceof Error) return { exitCode: exitCodes.server, message: error.cause.message };
    return { exitCode: exitCodeOfServerError(error.status, error.code), message: `${error.summary} (${error.code})` };
  }
  return { exitCode: exitCodes.server, message: error instanceof Error ? error.message : String(error) };
}
