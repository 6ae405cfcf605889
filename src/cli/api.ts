import { createApiClient, type ApiClient } from '../shared/api/client.ts';
import { UPLOAD_TRIES } from '../shared/api/retry.ts';
import type { CliIo } from './io.ts';

export type CliApiOptions = { server: string; token?: string; io: CliIo; retryDelayMs: number };

/**
 * The REST API of {server} with the bearer token (src/shared/api). Every call is tried 3 times 5 s
 * apart on network errors and 5xx (spec §9; CARTRIDGE_RETRY_DELAY_MS shortens the pause), each retry
 * told on stderr; Ctrl-C (io.signal) aborts whatever runs. Refusals throw ApiError with the server's code.
 */
export function createCliApi(options: CliApiOptions): ApiClient {
  const { io } = options;
  return createApiClient({
    baseUrl: options.server,
    auth: () => options.token,
    fetch: io.fetch,
    signal: io.signal,
    retry: {
      tries: UPLOAD_TRIES,
      delayMs: options.retryDelayMs,
      onRetry: (failedTry, error) => io.stderr(`${error.summary}; trying again (${failedTry + 1}/${UPLOAD_TRIES})\n`),
    },
  });
}
