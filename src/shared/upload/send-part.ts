import type { ApiClient } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import type { RetryPolicy } from '../api/retry.ts';
import { routes } from '../api/routes.ts';
import type { PartDescriptor } from './parts.ts';

export type UploadTarget = { uploadUrl: string; token: string; partSize: number };

export type SendPartOptions = {
  api: ApiClient;
  target: UploadTarget;
  part: number;
  bytes: Uint8Array;
  /** SHA-1 hex of `bytes`, computed by the caller (a hashing stage may run elsewhere). */
  hash: string;
  signal?: AbortSignal;
  /** Fields of the client's retry policy (its onRetry is told before each pause). */
  retry?: Partial<RetryPolicy>;
};

/**
 * PUTs one hashed part to the upload URL (spec §7: query token, part, hash; octet-stream body), tried
 * as the client's policy says (spec §9: 3 tries, 5 s apart), and checks the server acknowledged exactly
 * it. The building block of uploadParts and of streamed uploads that cut parts while packing.
 */
export async function sendPart(options: SendPartOptions): Promise<PartDescriptor> {
  const { target, part, bytes, hash } = options;
  // A Blob, not the bytes: Chromium sends an 8 MiB Uint8Array body at a few MB/s (10-20x slower than
  // the same bytes as a Blob, in a worker too; `bun run bench:upload`). Same request, one copy more.
  const body = new Blob([bytes as Uint8Array<ArrayBuffer>]);
  const descriptor = await options.api.call(routes.packages.uploadPart, {
    url: target.uploadUrl,
    query: { token: target.token, part, hash },
    body,
    signal: options.signal,
    retry: options.retry,
    label: `part ${part}`,
  });
  if (descriptor.part !== part || descriptor.hash !== hash || descriptor.size !== bytes.length) {
    throw new ApiError('unexpected_error', `the server acknowledged part ${part} with another hash or size`, { status: 200, request: 'part upload', retryable: false });
  }
  return descriptor;
}

