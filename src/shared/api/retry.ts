import { sleep } from '../sleep.ts';
import { abortedError, ApiError, toApiError, TriedFewTimesError } from './errors.ts';

/** Spec §9: tries per upload request and the pause between them. */
export const UPLOAD_TRIES = 3;
const UPLOAD_RETRY_DELAY_MS = 5000;

/**
 * How a call is tried again, chosen by whoever makes the client (and per call when needed). Only
 * retryable failures (network, 5xx, 408) are tried again; a refusal (4xx, and 507 out_of_storage: a full
 * disk waits for its operator) and an abort are thrown at once.
 */
export type RetryPolicy = {
  /** Tries in all (1: no retry). */
  tries: number;
  delayMs: number;
  /** Injectable for tests; resolves after `ms`, or rejects when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Told before each pause: the failed try (1-based) and its error. */
  onRetry?: (failedTry: number, error: ApiError) => void;
  /** Told before each try after the first (a status shown as 'retrying' goes back). */
  onTry?: (attempt: number) => void;
};

/** One try: what every call gets unless its client or the call asks for more. */
export const noRetry: RetryPolicy = { tries: 1, delayMs: 0 };

/** Spec §9 for uploads (part uploads, create, finalize, resolve): 3 tries, 5000 ms apart. */
export const uploadRetry: RetryPolicy = { tries: UPLOAD_TRIES, delayMs: UPLOAD_RETRY_DELAY_MS };

/**
 * Runs `attempt` up to `policy.tries` times, `policy.delayMs` apart. A failure that is not an ApiError
 * counts as a network failure (retryable); when every try failed, TriedFewTimesError
 * (trying_few_times_failed) carries the last failure. An abort ends it as request_aborted.
 */
export async function withRetries<T>(attempt: (tryNumber: number) => Promise<T>, policy: Partial<RetryPolicy> = {}, signal?: AbortSignal): Promise<T> {
  const tries = Math.max(1, policy.tries ?? noRetry.tries);
  const wait = policy.sleep ?? sleep;
  for (let done = 1; ; done++) {
    try {
      if (done > 1) policy.onTry?.(done);
      return await attempt(done);
    } catch (error) {
      if (signal?.aborted) throw abortedError(signal.reason);
      const failure = error instanceof ApiError ? error : new ApiError('network', error instanceof Error ? error.message : String(error), { cause: error });
      if (!failure.retryable) throw failure;
      if (tries === 1) throw failure;
      if (done >= tries) throw new TriedFewTimesError(tries, failure);
      policy.onRetry?.(done, failure);
      try {
        await wait(policy.delayMs ?? 0, signal);
      } catch (reason) {
        throw toApiError(signal?.aborted ? abortedError(signal.reason) : reason);
      }
    }
  }
}
