/**
 * The one error of a REST call (spec §8), for every program that calls the API: the web client, the
 * upload worker, the command line, and the companion app and cloud-play agent to come.
 *
 * - A refusal: the server's body `{ code, message, details? }` with the HTTP status; a failure whose
 *   body is not that (a proxy's error page) is `http_<status>`.
 * - No answer at all (`status` 0): the client-side codes of spec §8 — `network` (the request never got
 *   an answer), `request_aborted` ('Request aborted'), `trying_few_times_failed` (every try of a
 *   retried request failed), `unsupported_hash_algorithm`, and the sign-in ones (`unsupported_provider`,
 *   `unknown_intent`, `wrong_finish_auth_params`). Code that is not about HTTP at all (the web client's
 *   own checks) throws these too: `new ApiError('timeout')`.
 */
export type ApiErrorOptions = {
  /** HTTP status; 0 (the default) when no HTTP answer is behind the error. */
  status?: number;
  statusText?: string;
  /** The `details` of the server's error body. */
  details?: unknown;
  /** The whole body as received (parsed JSON, or the text when it is not JSON). */
  body?: unknown;
  /** What was asked, for messages: 'GET /projects/p1', 'part upload'. */
  request?: string;
  /** Worth trying again: by default a network failure, a 5xx (but out_of_storage) or 408. */
  retryable?: boolean;
  cause?: unknown;
};

export class ApiError extends Error {
  /** A server code of spec §8, a client code (ClientErrorCode) or `http_<status>`. */
  readonly code: string;
  readonly status: number;
  readonly statusText: string;
  readonly details: unknown;
  readonly body: unknown;
  readonly request: string | undefined;
  readonly retryable: boolean;

  constructor(code: string, message: string = code, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = options.status ?? 0;
    this.statusText = options.statusText ?? '';
    this.details = options.details;
    this.body = options.body;
    this.request = options.request;
    // A full disk does not empty itself within a retry's pause: out_of_storage is said at once.
    this.retryable = options.retryable ?? (code !== 'out_of_storage' && (code === 'network' || this.status >= 500 || this.status === 408));
  }

  /** 'GET /projects/p1: not found': the message with what was asked, for logs and the command line. */
  get summary(): string {
    return this.request ? `${this.request}: ${this.message}` : this.message;
  }
}

/** Spec §8 `trying_few_times_failed`: every try of a retried request failed; `last` is the last failure. */
export class TriedFewTimesError extends ApiError {
  declare readonly code: 'trying_few_times_failed';
  constructor(
    readonly tries: number,
    readonly last: ApiError,
  ) {
    super('trying_few_times_failed', `failed ${tries} times: ${last.summary}`, { status: last.status, statusText: last.statusText, request: last.request, retryable: false, cause: last });
    this.name = 'TriedFewTimesError';
  }

  override get summary(): string {
    return this.message;
  }
}

/** Spec §8: a cancelled request is 'Request aborted'; `cause` is the signal's reason. */
export function abortedError(reason: unknown, request?: string): ApiError {
  return new ApiError('request_aborted', 'Request aborted', { request, retryable: false, cause: reason });
}

function isAbortError(error: unknown): boolean {
  if (error instanceof ApiError) return error.code === 'request_aborted';
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

/** The error of a non-2xx answer: the server's `{code, message, details}` when the body is one, else `http_<status>`. */
export async function responseError(response: Response, request?: string): Promise<ApiError> {
  let body: unknown;
  let text = '';
  try {
    text = await response.text();
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text || undefined;
  }
  const errorBody = typeof body === 'object' && body !== null ? (body as { code?: unknown; message?: unknown; details?: unknown }) : undefined;
  const code = typeof errorBody?.code === 'string' ? errorBody.code : `http_${response.status}`;
  const message = typeof errorBody?.message === 'string' ? errorBody.message : `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  return new ApiError(code, message, { status: response.status, statusText: response.statusText, details: errorBody?.details, body, request });
}

/** Anything a call may throw, as an ApiError (a bug or an unknown failure is unexpected_error). */
export function toApiError(error: unknown, request?: string): ApiError {
  if (error instanceof ApiError) return error;
  if (isAbortError(error)) return abortedError(error, request);
  return new ApiError('unexpected_error', error instanceof Error ? error.message : String(error), { request, retryable: false, cause: error });
}
