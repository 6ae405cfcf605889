import { PART_UPLOAD_CONCURRENCY, UPLOAD_RETRY_DELAY_MS, UPLOAD_TRIES } from './constants.ts';
import { responseError, UploadRequestError } from './errors.ts';
import { missingParts, partRange, type PartDescriptor, type PartSource } from './parts.ts';
import { withRetries } from './retry.ts';
import { sha1Hex } from './sha1.ts';

export type UploadTarget = { uploadUrl: string; token: string; partSize: number };

export type UploadPartsOptions = {
  target: UploadTarget;
  source: PartSource;
  /** Parts the server acknowledged in an earlier run (resume): they are not sent again. */
  acknowledged?: readonly PartDescriptor[];
  concurrency?: number;
  tries?: number;
  retryDelayMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** A part was acknowledged: persist it (resume state) before anything else relies on it. */
  onPart?: (descriptor: PartDescriptor) => void | Promise<void>;
  /** Bytes of part bodies sent so far in this run (counted when a part is acknowledged or in flight). */
  onProgress?: (sentBytes: number) => void;
  onRetry?: (part: number, failedTry: number, error: UploadRequestError) => void;
};

export type UploadPartsResult = { parts: PartDescriptor[]; sentBytes: number; sentParts: number };

export function partUrl(target: UploadTarget, part: number, hash: string): string {
  const url = new URL(target.uploadUrl);
  url.searchParams.set('token', target.token);
  url.searchParams.set('part', String(part));
  url.searchParams.set('hash', hash);
  return url.toString();
}

async function putPart(doFetch: typeof fetch, url: string, bytes: Uint8Array, signal?: AbortSignal): Promise<PartDescriptor> {
  let response: Response;
  try {
    // A Blob, not the bytes: Chromium sends an 8 MiB Uint8Array body at a few MB/s (10-20x slower than
    // the same bytes as a Blob, in a worker too; `bun run bench:upload`). Same request, one copy more.
    const body = new Blob([bytes as Uint8Array<ArrayBuffer>]);
    response = await doFetch(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body, signal });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new UploadRequestError(`part upload: ${error instanceof Error ? error.message : String(error)}`, 0);
  }
  if (response.status !== 200) throw await responseError(response, 'part upload');
  return (await response.json()) as PartDescriptor;
}

export type SendPartOptions = {
  target: UploadTarget;
  part: number;
  bytes: Uint8Array;
  /** SHA-1 hex of `bytes`, computed by the caller (a hashing stage may run elsewhere). */
  hash: string;
  tries?: number;
  retryDelayMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Told before each pause between tries. */
  onRetry?: (failedTry: number, error: UploadRequestError) => void;
};

/**
 * PUTs one hashed part, tried up to 3 times 5 s apart (spec §9), and checks the server acknowledged
 * exactly it. The building block of uploadParts and of streamed uploads that cut parts while packing.
 */
export async function sendPart(options: SendPartOptions): Promise<PartDescriptor> {
  const { part, bytes, hash, signal } = options;
  const doFetch = options.fetch ?? fetch;
  const descriptor = await withRetries(() => putPart(doFetch, partUrl(options.target, part, hash), bytes, signal), {
    tries: options.tries ?? UPLOAD_TRIES,
    delayMs: options.retryDelayMs ?? UPLOAD_RETRY_DELAY_MS,
    sleep: options.sleep,
    signal,
    onRetry: options.onRetry,
  });
  if (descriptor.part !== part || descriptor.hash !== hash || descriptor.size !== bytes.length) {
    throw new UploadRequestError(`part upload: the server acknowledged part ${part} with another hash or size`, 200, undefined, false);
  }
  return descriptor;
}

/**
 * Uploads the parts of `source` that are not acknowledged yet, `concurrency` at a time (spec §9: 2),
 * each hashed with SHA-1 and tried up to 3 times 5 s apart. Resolves with every descriptor in part
 * order (earlier ones included), ready for finalize. The first part that fails for good stops the rest.
 */
export async function uploadParts(options: UploadPartsOptions): Promise<UploadPartsResult> {
  const { target, source } = options;
  const doFetch = options.fetch ?? fetch;
  const byPart = new Map<number, PartDescriptor>((options.acknowledged ?? []).map((item) => [item.part, item]));
  const queue = missingParts(source.size, target.partSize, [...byPart.values()]);
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  let sentBytes = 0;
  let sentParts = 0;

  async function send(part: number): Promise<void> {
    const { start, end } = partRange(part, source.size, target.partSize);
    const bytes = await source.read(start, end);
    const hash = await sha1Hex(bytes);
    const descriptor = await sendPart({ ...options, fetch: doFetch, signal, part, bytes, hash, onRetry: (failedTry, error) => options.onRetry?.(part, failedTry, error) });
    byPart.set(part, descriptor);
    sentBytes += bytes.length;
    sentParts += 1;
    await options.onPart?.(descriptor);
    options.onProgress?.(sentBytes);
  }

  async function worker(): Promise<void> {
    for (let part = queue.shift(); part !== undefined; part = queue.shift()) await send(part);
  }

  const workers = Array.from({ length: Math.max(1, Math.min(options.concurrency ?? PART_UPLOAD_CONCURRENCY, queue.length)) }, () =>
    worker().catch((error: unknown) => {
      queue.length = 0;
      controller.abort(error);
      throw error;
    }),
  );
  const settled = await Promise.allSettled(workers);
  // The first failure is the cause; the others are its abort echoing through.
  const failed = settled.find((item): item is PromiseRejectedResult => item.status === 'rejected');
  if (failed) throw controller.signal.aborted && !options.signal?.aborted ? controller.signal.reason : failed.reason;
  return { parts: [...byPart.values()].sort((a, b) => a.part - b.part), sentBytes, sentParts };
}
