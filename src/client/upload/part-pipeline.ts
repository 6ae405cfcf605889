import { sendPart, sha1Hex, splitStream, type PartDescriptor, type UploadRequestError, type UploadTarget } from '../../shared/upload/index.ts';
import { createLimiter, type Limiter } from './limiter.ts';
import type { PartStatus } from './statuses.ts';
import { PARTS_IN_MEMORY } from './upload-constants.ts';

export type RetryTuning = { tries?: number; retryDelayMs?: number; sleep?: (ms: number, signal?: AbortSignal) => Promise<void> };

export type StreamPartsOptions = RetryTuning & {
  stream: ReadableStream<Uint8Array>;
  target: UploadTarget;
  /** Parts acknowledged in an earlier run: not sent again when the re-made part has the same hash. */
  acknowledged: ReadonlyMap<number, PartDescriptor>;
  hashing: Limiter;
  uploading: Limiter;
  signal: AbortSignal;
  fetch?: typeof fetch;
  onPartStatus(part: number, status: PartStatus): void;
  /** Every part is cut: only hashing and uploads remain. */
  onSplitDone(partCount: number): void;
  /** A part is acknowledged (now or earlier): persist it before it counts. */
  onPart(descriptor: PartDescriptor, resent: boolean): void | Promise<void>;
  onRetry?(part: number, error: UploadRequestError): void;
};

/**
 * Cuts the archive stream into parts, hashes them (SHA-1) and uploads them, never holding more than
 * PARTS_IN_MEMORY parts besides the one being cut: the packer is only read when a slot frees up.
 * Resolves with every descriptor in part order; the first part that fails for good stops the rest.
 */
export async function streamParts(options: StreamPartsOptions): Promise<PartDescriptor[]> {
  const { target, signal } = options;
  const memory = createLimiter(PARTS_IN_MEMORY);
  const controller = new AbortController();
  const abort = AbortSignal.any([signal, controller.signal]);
  const descriptors: PartDescriptor[] = [];
  const tasks: Promise<void>[] = [];
  let failure: unknown;

  const handle = async (part: number, bytes: Uint8Array) => {
    options.onPartStatus(part, 'hashing');
    const hash = await options.hashing.run(() => sha1Hex(bytes));
    const earlier = options.acknowledged.get(part);
    if (earlier && earlier.hash === hash && earlier.size === bytes.length) {
      descriptors[part] = earlier;
      await options.onPart(earlier, false);
      options.onPartStatus(part, 'done');
      return;
    }
    options.onPartStatus(part, 'upload_queued');
    const descriptor = await options.uploading.run(() => {
      abort.throwIfAborted();
      options.onPartStatus(part, 'uploading');
      return sendPart({
        target,
        part,
        bytes,
        hash,
        tries: options.tries,
        retryDelayMs: options.retryDelayMs,
        sleep: options.sleep,
        fetch: options.fetch,
        signal: abort,
        onRetry: (_try, error) => {
          options.onPartStatus(part, 'upload_retrying');
          options.onRetry?.(part, error);
        },
      });
    });
    options.onPartStatus(part, 'upload_finalizing');
    descriptors[part] = descriptor;
    await options.onPart(descriptor, true);
    options.onPartStatus(part, 'done');
  };

  let count = 0;
  const reader = splitStream(options.stream, target.partSize);
  try {
    for (;;) {
      // Wait for a memory slot before pulling the next part out of the packer.
      let releaseSlot!: () => void;
      const slot = new Promise<void>((resolve) => (releaseSlot = resolve));
      const acquired = new Promise<void>((resolve) => void memory.run(() => (resolve(), slot)));
      await acquired;
      if (failure !== undefined) {
        releaseSlot();
        break;
      }
      const next = await reader.next();
      if (next.done) {
        releaseSlot();
        break;
      }
      const { part, bytes } = next.value;
      count = part + 1;
      options.onPartStatus(part, 'queued');
      tasks.push(
        handle(part, bytes)
          .catch((error: unknown) => {
            options.onPartStatus(part, 'upload_errored');
            if (failure === undefined) {
              failure = error;
              controller.abort(error);
            }
          })
          .finally(releaseSlot),
      );
    }
  } catch (error) {
    failure ??= error;
    controller.abort(error);
  } finally {
    await reader.return(undefined).catch(() => undefined);
  }
  if (failure === undefined) options.onSplitDone(count);
  await Promise.all(tasks);
  if (failure !== undefined) throw signal.aborted ? signal.reason : failure;
  return descriptors;
}
