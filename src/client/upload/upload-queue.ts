import { PART_UPLOAD_CONCURRENCY, type PartDescriptor } from '../../shared/upload/index.ts';
import { createLimiter } from './limiter.ts';
import { runPackageUpload, type PackageUploadJob, type UploadLimiters } from './package-upload.ts';
import type { RetryTuning } from './part-pipeline.ts';
import type { PackageUploadState, ResumeState } from './statuses.ts';
import { createUploadApi, type UploadApiConfig } from './upload-api.ts';
import { HASHING_CONCURRENCY, PACKAGING_CONCURRENCY } from './upload-constants.ts';

/** What the queue tells its owner, each about one upload (`id` chosen by whoever added it). */
export type UploadEvent =
  | { type: 'state'; id: string; state: PackageUploadState }
  | { type: 'created'; id: string; resume: ResumeState }
  | { type: 'part'; id: string; descriptor: PartDescriptor };

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
  const api = createUploadApi({ ...options.api, fetch: options.api.fetch ?? options.fetch });
  const limiters: UploadLimiters = {
    packing: createLimiter(PACKAGING_CONCURRENCY),
    hashing: createLimiter(HASHING_CONCURRENCY),
    uploading: createLimiter(PART_UPLOAD_CONCURRENCY),
  };
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
          fetch: options.fetch,
          tries: options.tries,
          retryDelayMs: options.retryDelayMs,
          sleep: options.sleep,
          resolvePollMs: options.resolvePollMs,
          onState: (state) => options.onEvent({ type: 'state', id, state }),
          onCreated: (resume) => options.onEvent({ type: 'created', id, resume }),
          onPart: (descriptor) => options.onEvent({ type: 'part', id, descriptor }),
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
