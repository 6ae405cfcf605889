import type { ApiClient } from '../api/client.ts';
import { abortedError, ApiError } from '../api/errors.ts';
import { waitForJob } from '../api/jobs.ts';
import type { RetryPolicy } from '../api/retry.ts';
import { routes } from '../api/routes.ts';
import { HASHING_CONCURRENCY, PACKAGING_CONCURRENCY, PART_UPLOAD_CONCURRENCY, RESOLVE_POLL_MS } from './constants.ts';
import { createLimiter, type Limiter } from '../limiter.ts';
import { uploadPartStream } from './part-pipeline.ts';
import { countParts, type PartDescriptor, type PartInput } from './parts.ts';
import { noPersistence, type UploadPersistence, type UploadRecord } from './record.ts';
import { initialUploadState, roundProgress, type PackageUploadState, type PackageUploadStatus } from './statuses.ts';

/** The archive, ready to be cut into parts: its exact size is known before the record is made. */
export type PreparedArchive = {
  size: number;
  /** Stored bytes of the chunks the base lacks (a patch), else of all chunks; null when unknown. */
  patchSize: number | null;
  /**
   * The archive's parts of `partSize`, in order. A stream (packed as it goes) makes every part and the
   * session compares acknowledged ones by hash; a file on disk skips them unread ({ earlier }).
   */
  parts(partSize: number, acknowledged: ReadonlyMap<number, PartDescriptor>): AsyncIterable<PartInput>;
};

/** Spec §9 limits, shared by every upload of one place (the browser's worker shares them between packages). */
export type UploadLimiters = { packing: Limiter; hashing: Limiter; uploading: Limiter };

export function createUploadLimiters(): UploadLimiters {
  return { packing: createLimiter(PACKAGING_CONCURRENCY), hashing: createLimiter(HASHING_CONCURRENCY), uploading: createLimiter(PART_UPLOAD_CONCURRENCY) };
}

/** What the package record is made with (POST .../packages, less the size the archive gives). */
type PackageRequest = { title?: string | null; tags: string[]; entrypoint: string[] | null; basePackage: string | null };

type UploadProgress = { resent: boolean; acknowledgedBytes: number; acknowledgedParts: number; totalParts: number };

export type UploadSessionOptions = {
  /** Auth, abort and the retry policy of the calls (spec §9: 3 tries, 5 s apart) are the client's. */
  api: ApiClient;
  project: string;
  package: PackageRequest;
  /** Makes the archive ready (status packing): the browser indexes the files, the command line packed them to disk. */
  prepare(signal: AbortSignal): Promise<PreparedArchive>;
  /** The record an interrupted run left: continued when the server still has it and the size matches. */
  resume?: UploadRecord | null;
  /** Where the record is kept as it changes (localStorage through the page, the push-state file). */
  persistence?: UploadPersistence;
  limiters?: UploadLimiters;
  signal?: AbortSignal;
  /** Fields replacing the client's retry policy for the upload calls and parts. */
  retry?: Partial<RetryPolicy>;
  /** A patch's resolve job: followed through its event stream (falling back to polling), or polled. */
  jobs?: { events?: boolean; pollMs?: number };
  /** Cancelled (aborted): delete the record the server made (the browser); else keep it for the next run (Ctrl-C). */
  discardOnAbort?: boolean;
  /** Every change of the package's state (a fresh object each time). */
  onState?(state: PackageUploadState): void;
  /** A part is acknowledged (and saved): now (`resent`) or in an earlier run. */
  onPart?(descriptor: PartDescriptor, progress: UploadProgress): void;
  onPartRetry?(part: number, failedTry: number, error: ApiError): void;
  /** Something worth telling a person ('the earlier upload expired on the server; starting over'). */
  onNotice?(message: string): void;
};

export type UploadOutcome = {
  state: PackageUploadState;
  /** The ready package: the record, or for a resolved patch the resulting package. */
  packageId: string;
  /** Part bodies sent in this run. */
  sentBytes: number;
  sentParts: number;
  totalParts: number;
  /** An interrupted run's record was continued. */
  resumed: boolean;
};

/** A refusal of the upload token (expired, or the record gone): a resumed upload starts over, once. */
function isStaleResume(error: unknown): boolean {
  return error instanceof ApiError && !error.retryable && [401, 403, 404, 409, 410].includes(error.status);
}

function errorCode(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') return error.code;
  return 'unexpected_error';
}

function copyRecord(record: UploadRecord): UploadRecord {
  return { ...record, parts: [...record.parts] };
}

/**
 * One package upload, the same in the browser (its worker) and the command line, through the spec §4
 * statuses: packing (the caller's prepare, inside the packing limit) → creating (POST .../packages, or
 * the resumed record) → splitting (parts cut, hashed and uploaded, spec §9 limits) → uploading (all cut,
 * the last ones in flight) → finalizing → resolving (a patch's job) → done; create_retrying,
 * finalize_retrying and resolve_retrying while a call waits for its next try; errored with the code.
 * Resolves with the outcome; on failure reports the errored state, then throws the error.
 */
export async function runUploadSession(options: UploadSessionOptions): Promise<UploadOutcome> {
  const { api, project } = options;
  const signal = options.signal ?? new AbortController().signal;
  const limiters = options.limiters ?? createUploadLimiters();
  const persistence = options.persistence ?? noPersistence;
  let state = initialUploadState();
  const update = (change: Partial<PackageUploadState>) => {
    state = { ...state, ...change };
    options.onState?.(state);
  };
  /** A call shown as `status`, and as `retryStatus` while it waits for its next try. */
  const shownAs = (status: PackageUploadStatus, retryStatus: PackageUploadStatus): Partial<RetryPolicy> => ({
    ...options.retry,
    onRetry: (failedTry, error) => {
      update({ status: retryStatus });
      options.retry?.onRetry?.(failedTry, error);
    },
    onTry: (attempt) => {
      update({ status });
      options.retry?.onTry?.(attempt);
    },
  });
  // The record the server made (or the resumed one): deleted again when a browser upload is cancelled.
  let record: UploadRecord | null = null;
  let sentBytes = 0;
  let sentParts = 0;
  let totalParts = 0;
  let resumed = false;
  options.onState?.(state);

  /** The resumed record as the server has it: null when it is gone; finalized when finalize answered unrecorded. */
  async function checkRecord(resume: UploadRecord): Promise<UploadRecord | null> {
    try {
      const existing = await api.call(routes.packages.get, { params: { project, package: resume.packageId }, signal, retry: options.retry });
      if (existing.status !== 'uploading') resume.finalized = { status: existing.status };
      return resume;
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'not_found') throw error;
      await persistence.forget();
      return null;
    }
  }

  async function upload(prepared: PreparedArchive, resume: UploadRecord | null): Promise<void> {
    let current: UploadRecord;
    if (resume) {
      current = resume;
    } else {
      update({ status: 'creating' });
      const { title, tags, entrypoint, basePackage } = options.package;
      const created = await api.call(routes.packages.create, {
        params: { project },
        body: { size: prepared.size, title, tags, entrypoint, basePackage },
        signal,
        retry: shownAs('creating', 'create_retrying'),
      });
      current = { packageId: created.id, uploadInfo: created.uploadInfo, size: prepared.size, parts: [] };
      await persistence.save(current);
    }
    record = current;
    const { uploadInfo } = current;
    if (uploadInfo.partHashAlgorithm !== 'sha1') {
      throw new ApiError('unsupported_hash_algorithm', `unsupported part hash algorithm ${String(uploadInfo.partHashAlgorithm)}`, { retryable: false });
    }
    totalParts = countParts(prepared.size, uploadInfo.partSize);
    if (!current.finalized) {
      update({ status: 'splitting', packageId: current.packageId });
      const acknowledged = new Map(current.parts.map((item) => [item.part, item]));
      let acknowledgedBytes = 0;
      let acknowledgedParts = 0;
      const parts = await uploadPartStream({
        api,
        target: { uploadUrl: uploadInfo.uploadUrl, token: uploadInfo.token, partSize: uploadInfo.partSize },
        parts: prepared.parts(uploadInfo.partSize, acknowledged),
        acknowledged,
        hashing: limiters.hashing,
        uploading: limiters.uploading,
        signal,
        retry: options.retry,
        onPartStatus: (part, status) => {
          const next = state.parts.slice();
          next[part] = status;
          update({ parts: next });
        },
        onSplitDone: () => update({ status: 'uploading' }),
        onPart: async (descriptor, resent) => {
          if (resent) {
            const index = current.parts.findIndex((item) => item.part === descriptor.part);
            if (index >= 0) current.parts[index] = descriptor;
            else current.parts.push(descriptor);
            await persistence.savePart(descriptor, current);
            sentBytes += descriptor.size;
            sentParts += 1;
          }
          acknowledgedBytes += descriptor.size;
          acknowledgedParts += 1;
          update({ sentBytes: state.sentBytes + (resent ? descriptor.size : 0), progress: roundProgress(acknowledgedBytes, prepared.size) });
          options.onPart?.(descriptor, { resent, acknowledgedBytes, acknowledgedParts, totalParts });
        },
        onRetry: options.onPartRetry,
      });
      update({ status: 'finalizing' });
      const finalized = await api.call(routes.packages.finalize, {
        params: { project, package: current.packageId },
        body: { token: uploadInfo.token, parts },
        signal,
        retry: shownAs('finalizing', 'finalize_retrying'),
      });
      current.finalized = { status: finalized.status };
      await persistence.save(current);
    }
    const finalStatus = current.finalized?.status;
    if (options.package.basePackage && finalStatus !== 'ready') {
      // A patch becomes a package through its resolve job; its output names the resulting package.
      update({ status: 'resolving', packageId: current.packageId });
      if (!current.resolveJob) {
        current.resolveJob = await api.call(routes.packages.resolve, { params: { project, package: current.packageId }, signal, retry: shownAs('resolving', 'resolve_retrying') });
        await persistence.save(current);
      }
      const job = await waitForJob(api, current.resolveJob.token, {
        signal,
        events: options.jobs?.events,
        pollMs: options.jobs?.pollMs ?? RESOLVE_POLL_MS,
        call: { retry: shownAs('resolving', 'resolve_retrying') },
      });
      if (job.status === 'errored') throw new ApiError('unexpected_error', `resolving the patch failed: ${job.error ?? 'unknown error'}`, { retryable: false });
      const output = job.output as { package?: unknown } | null;
      update({ packageId: typeof output?.package === 'string' ? output.package : current.packageId });
      return;
    }
    // An errored full package cannot be used (a patch's errored resolve is retried by its job above).
    if (finalStatus === 'errored') throw new ApiError('unexpected_error', 'the server could not store the package', { retryable: false });
    update({ packageId: current.packageId });
  }

  try {
    await limiters.packing.run(async () => {
      update({ status: 'packing' });
      const prepared = await options.prepare(signal);
      signal.throwIfAborted();
      update({ size: prepared.size, patchSize: prepared.patchSize });
      let resume = options.resume && options.resume.size === prepared.size ? copyRecord(options.resume) : null;
      if (resume) resume = await checkRecord(resume);
      resumed = resume !== null;
      for (let attempt = 0; ; attempt++) {
        try {
          await upload(prepared, resume);
          return;
        } catch (error) {
          // A resumed record the server no longer accepts: start over with a new one, once.
          if (!resume || attempt > 0 || signal.aborted || !isStaleResume(error)) throw error;
          options.onNotice?.('the earlier upload expired on the server; starting over');
          resume = null;
          resumed = false;
          sentBytes = 0;
          sentParts = 0;
          await persistence.forget();
          update({ sentBytes: 0, progress: 0, parts: [] });
        }
      }
    });
  } catch (error) {
    if (!signal.aborted) {
      update({ status: 'errored', error: errorCode(error) });
      throw error;
    }
    if (options.discardOnAbort) {
      // Cancelled (the item removed, the dialog closed): no half-made package may stay behind.
      // Set inside upload(): the checker cannot see that assignment from here.
      const made = record as UploadRecord | null;
      if (made) await discardRecord(made.packageId);
      await persistence.forget();
      update({ status: 'errored', error: 'request_aborted', packageId: null });
    } else {
      update({ status: 'errored', error: 'request_aborted' });
    }
    throw abortedError(signal.reason);
  }
  update({ status: 'done', progress: 1 });
  return { state, packageId: state.packageId!, sentBytes, sentParts, totalParts, resumed };

  /**
   * Best effort, with one retry: a refusal (404: already gone) or a second failure leaves the record
   * to the storage sweep, which deletes uploads whose token expired.
   */
  async function discardRecord(packageId: string): Promise<void> {
    await api.call(routes.packages.delete, { params: { project, package: packageId }, retry: { ...options.retry, tries: 2 } }).catch(() => undefined);
  }
}
