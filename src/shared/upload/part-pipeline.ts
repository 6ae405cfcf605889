import type { ApiClient } from '../api/client.ts';
import type { ApiError } from '../api/errors.ts';
import type { RetryPolicy } from '../api/retry.ts';
import { PARTS_IN_MEMORY } from './constants.ts';
import { createLimiter, type Limiter } from '../limiter.ts';
import type { PartDescriptor, PartInput } from './parts.ts';
import { sha1Hex } from './sha1.ts';
import type { PartStatus } from './statuses.ts';
import { sendPart, type UploadTarget } from './send-part.ts';

export type PartPipelineOptions = {
  api: ApiClient;
  target: UploadTarget;
  /** The archive's parts in order: cut from a stream while it is packed, or read from a file. */
  parts: AsyncIterable<PartInput>;
  /** Parts acknowledged in an earlier run: not sent again when the re-made part has the same hash. */
  acknowledged: ReadonlyMap<number, PartDescriptor>;
  hashing: Limiter;
  uploading: Limiter;
  signal?: AbortSignal;
  /** Fields of the client's retry policy for the part PUTs (tests shorten the pause). */
  retry?: Partial<RetryPolicy>;
  onPartStatus(part: number, status: PartStatus): void;
  /** Every part is cut: only hashing and uploads remain. */
  onSplitDone(partCount: number): void;
  /** A part is acknowledged (now, `resent`, or earlier): persist it before it counts. */
  onPart(descriptor: PartDescriptor, resent: boolean): void | Promise<void>;
  onRetry?(part: number, failedTry: number, error: ApiError): void;
};

/**
 * Hashes (SHA-1) and uploads the parts a source hands out, never holding more than PARTS_IN_MEMORY
 * parts besides the one being made: the source is only read when a slot frees up. Resolves with every
 * descriptor in part order; the first part that fails for good stops the rest.
 */
export async function uploadPartStream(options: PartPipelineOptions): Promise<PartDescriptor[]> {
  const { target } = options;
  const memory = createLimiter(PARTS_IN_MEMORY);
  const controller = new AbortController();
  const abort = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const descriptors: PartDescriptor[] = [];
  const tasks: Promise<void>[] = [];
  let failure: unknown;
  /** The first part that fails for good stops the others: none may start after it. */
  const fail = (error: unknown) => {
    if (failure !== undefined) return;
    failure = error;
    controller.abort(error);
  };

  const settle = async (descriptor: PartDescriptor, resent: boolean) => {
    descriptors[descriptor.part] = descriptor;
    await options.onPart(descriptor, resent);
    options.onPartStatus(descriptor.part, 'done');
  };

  /**
   * `turn` resolves once the part before has joined the upload queue (or needed no upload); `queued`
   * tells the part after. Hashes finish in any order, uploads start in part order.
   */
  const handle = async (input: PartInput, turn: Promise<void>, queued: () => void) => {
    const { part } = input;
    if (input.earlier) {
      await turn;
      queued();
      return settle(input.earlier, false);
    }
    const bytes = input.bytes;
    let upload: Promise<PartDescriptor>;
    try {
      options.onPartStatus(part, 'hashing');
      const hash = await options.hashing.run(() => sha1Hex(bytes));
      await turn;
      const earlier = options.acknowledged.get(part);
      if (earlier && earlier.hash === hash && earlier.size === bytes.length) return settle(earlier, false);
      options.onPartStatus(part, 'upload_queued');
      upload = queueUpload(part, bytes, hash);
    } finally {
      queued();
    }
    const descriptor = await upload;
    options.onPartStatus(part, 'upload_finalizing');
    await settle(descriptor, true);
  };

  const queueUpload = (part: number, bytes: Uint8Array, hash: string): Promise<PartDescriptor> =>
    options.uploading.run(async () => {
      abort.throwIfAborted();
      options.onPartStatus(part, 'uploading');
      // Failed parts stop the others before this one frees its upload slot.
      return sendPart({
        api: options.api,
        target,
        part,
        bytes,
        hash,
        signal: abort,
        retry: {
          ...options.retry,
          onRetry: (failedTry, error) => {
            options.onPartStatus(part, 'upload_retrying');
            options.onRetry?.(part, failedTry, error);
          },
          onTry: () => options.onPartStatus(part, 'uploading'),
        },
      }).catch((error: unknown) => {
        fail(error);
        throw error;
      });
    });

  let count = 0;
  let previousQueued = Promise.resolve();
  const reader = options.parts[Symbol.asyncIterator]();
  try {
    for (;;) {
      // Wait for a memory slot before pulling the next part out of the source.
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
      const input = next.value;
      count = input.part + 1;
      options.onPartStatus(input.part, 'queued');
      const turn = previousQueued;
      let queued!: () => void;
      previousQueued = new Promise<void>((resolve) => (queued = resolve));
      tasks.push(
        handle(input, turn, queued)
          .catch((error: unknown) => {
            options.onPartStatus(input.part, 'upload_errored');
            fail(error);
          })
          .finally(releaseSlot),
      );
    }
  } catch (error) {
    fail(error);
  } finally {
    await reader.return?.(undefined).catch(() => undefined);
  }
  if (failure === undefined) options.onSplitDone(count);
  await Promise.all(tasks);
  if (failure !== undefined) throw options.signal?.aborted ? options.signal.reason : failure;
  return descriptors;
}
