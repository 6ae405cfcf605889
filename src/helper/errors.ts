import type { LocalHelperErrorCode } from '../shared/schemas/local-helper.ts';

/** The HTTP status each refusal answers with (spec §7: the page's client throws the parsed body). */
const statusOfCode: Record<LocalHelperErrorCode, number> = {
  not_trusted: 403,
  bad_host: 403,
  bad_origin: 403,
  untrusted_url: 403,
  bad_param: 400,
  unknown_method: 404,
  method_not_allowed: 405,
  not_found: 404,
  name_conflict: 409,
  busy: 409,
  not_installed: 409,
  bad_entrypoint: 409,
  download_failed: 409,
  unexpected_error: 500,
};

/** A refusal of the helper: answered as `{ code, message, details? }` with its status. */
export class HelperError extends Error {
  readonly code: LocalHelperErrorCode;
  readonly status: number;
  readonly details?: Record<string, unknown>;

  constructor(code: LocalHelperErrorCode, message: string, details?: Record<string, unknown>, status?: number) {
    super(message);
    this.name = 'HelperError';
    this.code = code;
    this.status = status ?? statusOfCode[code];
    this.details = details;
  }
}

export const notFound = (what: 'workspace' | 'workdir', id: string) => new HelperError('not_found', `No ${what} with id ${id}`, { [what]: id });

/** The message of anything thrown, on one line. */
export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, ' ').trim() || 'unknown error';
}
