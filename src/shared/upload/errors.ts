/**
 * Why an upload request failed. `status` is the HTTP status (0: no answer at all), `code` the
 * server's error code when its body had one. `retryable`: a network failure or a 5xx, worth trying again.
 */
export class UploadRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
    readonly retryable = status === 0 || status >= 500 || status === 408,
  ) {
    super(message);
    this.name = 'UploadRequestError';
  }
}

/** Spec §8 client code: every try of a retryable request failed. `cause` is the last failure. */
export class TriedFewTimesError extends Error {
  readonly code = 'trying_few_times_failed';
  constructor(readonly tries: number, readonly last: UploadRequestError) {
    super(`failed ${tries} times: ${last.message}`);
    this.name = 'TriedFewTimesError';
  }
}

/** Turns a non-2xx response into an UploadRequestError, keeping the server's {code, message}. */
export async function responseError(response: Response, what: string): Promise<UploadRequestError> {
  let code: string | undefined;
  let message = `${what}: HTTP ${response.status}`;
  try {
    const body = (await response.json()) as { code?: unknown; message?: unknown };
    if (typeof body.code === 'string') code = body.code;
    if (typeof body.message === 'string') message = `${what}: ${body.message}`;
  } catch {
    // Not JSON (a proxy's error page): the status says enough.
  }
  return new UploadRequestError(message, response.status, code);
}
