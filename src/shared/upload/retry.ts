import { UPLOAD_RETRY_DELAY_MS, UPLOAD_TRIES } from './constants.ts';
import { TriedFewTimesError, UploadRequestError } from './errors.ts';

export type RetryOptions = {
  tries?: number;
  delayMs?: number;
  /** Injectable for tests; resolves after `ms`, or rejects when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  /** Told before each pause: the failed try (1-based) and its error. */
  onRetry?: (failedTry: number, error: UploadRequestError) => void;
};

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function asRequestError(error: unknown): UploadRequestError {
  if (error instanceof UploadRequestError) return error;
  return new UploadRequestError(error instanceof Error ? error.message : String(error), 0);
}

/**
 * Runs `attempt` up to `tries` times, `delayMs` apart (spec §9: 3 tries, 5000 ms). Only retryable
 * failures (network, 5xx) are tried again; a refusal (4xx) is thrown at once as it is, and an abort too.
 */
export async function withRetries<T>(attempt: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const tries = options.tries ?? UPLOAD_TRIES;
  const wait = options.sleep ?? sleep;
  for (let done = 1; ; done++) {
    try {
      return await attempt();
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      const failure = asRequestError(error);
      if (!failure.retryable) throw failure;
      if (done >= tries) throw new TriedFewTimesError(tries, failure);
      options.onRetry?.(done, failure);
      await wait(options.delayMs ?? UPLOAD_RETRY_DELAY_MS, options.signal);
    }
  }
}
