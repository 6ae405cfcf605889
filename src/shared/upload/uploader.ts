import type { ApiClient } from '../api/client.ts';
import type { ApiError } from '../api/errors.ts';
import type { RetryPolicy } from '../api/retry.ts';
import { HASHING_CONCURRENCY, PART_UPLOAD_CONCURRENCY } from './constants.ts';
import { createLimiter } from '../limiter.ts';
import { rangeParts, type PartDescriptor, type PartSource } from './parts.ts';
import { uploadPartStream } from './part-pipeline.ts';
import type { UploadTarget } from './send-part.ts';

export type UploadPartsOptions = {
  api: ApiClient;
  target: UploadTarget;
  source: PartSource;
  /** Parts the server acknowledged in an earlier run (resume): they are not sent again. */
  acknowledged?: readonly PartDescriptor[];
  /** Part uploads at once (spec §9: 2). */
  concurrency?: number;
  signal?: AbortSignal;
  /** Fields of the client's retry policy for the part PUTs. */
  retry?: Partial<RetryPolicy>;
  /** A part was acknowledged: persist it (resume state) before anything else relies on it. */
  onPart?: (descriptor: PartDescriptor) => void | Promise<void>;
  /** Bytes of part bodies sent so far in this run (counted when a part is acknowledged). */
  onProgress?: (sentBytes: number) => void;
  onRetry?: (part: number, failedTry: number, error: ApiError) => void;
};

export type UploadPartsResult = { parts: PartDescriptor[]; sentBytes: number; sentParts: number };

/**
 * Uploads the parts of a random-access source that are not acknowledged yet, `concurrency` at a time
 * (spec §9: 2), each hashed with SHA-1. Resolves with every descriptor in part order (earlier ones
 * included), ready for finalize. The first part that fails for good stops the rest.
 */
export async function uploadParts(options: UploadPartsOptions): Promise<UploadPartsResult> {
  const acknowledged = new Map<number, PartDescriptor>((options.acknowledged ?? []).map((item) => [item.part, item]));
  let sentBytes = 0;
  let sentParts = 0;
  const parts = await uploadPartStream({
    api: options.api,
    target: options.target,
    parts: rangeParts(options.source, options.target.partSize, acknowledged),
    acknowledged,
    hashing: createLimiter(HASHING_CONCURRENCY),
    uploading: createLimiter(options.concurrency ?? PART_UPLOAD_CONCURRENCY),
    signal: options.signal,
    retry: options.retry,
    onPartStatus: () => {},
    onSplitDone: () => {},
    onPart: async (descriptor, resent) => {
      if (!resent) return;
      sentBytes += descriptor.size;
      sentParts += 1;
      await options.onPart?.(descriptor);
      options.onProgress?.(sentBytes);
    },
    onRetry: options.onRetry,
  });
  return { parts, sentBytes, sentParts };
}
