import { createApiClient } from '../../shared/api/client.ts';
import { uploadRetry } from '../../shared/api/retry.ts';
import type { PartDescriptor } from '../../shared/upload/parts.ts';
import type { UploadRecord } from '../../shared/upload/record.ts';
import { createUploadLimiters } from '../../shared/upload/session.ts';
import type { PackageUploadState } from '../../shared/upload/statuses.ts';
import { runPackageUpload, type PackageUploadJob } from './package-upload.ts';

/** What the queue tells its owner, each about one upload (`id` chosen by whoever added it). */
export type UploadEvent =
  | { type: 'state'; id: string; state: PackageUploadState }
  | { type: 'created'; id: string; resume: UploadRecord }
  | { type: 'part'; id: string; descriptor: PartDescriptor };

/**
 * Where the API is and who calls it. Passed in, not read from lib/api.ts: the queue runs in the upload
 * worker, which shares no module state with the page.
 */
export type UploadApiConfig = { origin: string; token: string | null };

/** Spec §9 retries (3 tries, 5000 ms apart) unless a test shortens them. */
type RetryTuning = { tries?: number; retryDelayMs?: number; sleep?: (ms: number, signal?: AbortSignal) => Promise<void> };

export type UploadQueueOptions = RetryTuning & { api: UploadApiConfig; fetch?: typeof fetch; resolvePollMs?: number; onEvent(event: UploadEvent): void };

export type UploadQueue = {
  add(id: string, job: PackageUploadJob): Promise<PackageUploadState>;
  cancel(id: string): void;
};

/**
 * Several package uploads sharing the spec §9 limits: 2 packing, 3 hashing, 2 part uploads at once
 * across all of them. The core of the upload worker, and what tests drive directly.
 */
export function createUploadQueue(options: UploadQueueOptions): UploadQueue {
  const api = createApiClient({
    baseUrl: options.api.origin,
    auth: () => options.api.token,
    fetch: options.fetch,
    retry: { tries: options.tries ?? uploadRetry.tries, delayMs: options.retryDelayMs ?? uploadRetry.delayMs, sleep: options.sleep },
  });
  const limiters = createUploadLimiters();
  const running = new Map<string, AbortController>();
  return {
    async add(id, job) {
      const controller = new AbortController();
      running.set(id, controller);
      try {
        return await runPackageUpload(job, {
          api,
          limiters,
          signal: controller.signal,
          resolvePollMs: options.resolvePollMs,
          onState: (state) => options.onEvent({ type: 'state', id, state }),
          // The page keeps the record (localStorage): a worker has none.
          persistence: {
            save: (record) => options.onEvent({ type: 'created', id, resume: structuredClone(record) }),
            savePart: (descriptor) => options.onEvent({ type: 'part', id, descriptor }),
            forget: () => {},
          },
        });
      } finally {
        running.delete(id);
      }
    },
    cancel(id) {
      running.get(id)?.abort(new DOMException('upload cancelled', 'AbortError'));
    },
  };
}
