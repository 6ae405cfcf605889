import { archiveSize, indexTree, packArchive, type ArchiveIndex } from '../../shared/archive/index.ts';
import { sleep, UploadRequestError, withRetries, type PartDescriptor } from '../../shared/upload/index.ts';
import type { CreatedPackage } from '../../shared/schemas/packages.ts';
import type { Limiter } from './limiter.ts';
import type { PackageDraft } from './package-draft.ts';
import { streamParts, type RetryTuning } from './part-pipeline.ts';
import { initialUploadState, roundProgress, type PackageUploadState, type PackageUploadStatus, type ResumeState } from './statuses.ts';
import type { UploadApi } from './upload-api.ts';
import { RESOLVE_POLL_MS, UPLOAD_PACK_OPTIONS } from './upload-constants.ts';

export type UploadLimiters = { packing: Limiter; hashing: Limiter; uploading: Limiter };

export type PackageUploadContext = RetryTuning & {
  api: UploadApi;
  limiters: UploadLimiters;
  signal: AbortSignal;
  fetch?: typeof fetch;
  resolvePollMs?: number;
  /** Every change of the package's state (a fresh object each time). */
  onState(state: PackageUploadState): void;
  /** Resume bookkeeping: the record was created, a part was acknowledged. */
  onCreated?(resume: ResumeState): void;
  onPart?(descriptor: PartDescriptor): void;
};

export type PackageUploadJob = { project: string; draft: PackageDraft; resume?: ResumeState | null };

/** A refusal of the upload token (expired, or the record gone): a resumed upload starts over. */
function isStaleResume(error: unknown): boolean {
  return error instanceof UploadRequestError && !error.retryable && [401, 403, 404, 409, 410].includes(error.status);
}

function errorCode(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') return error.code;
  if (error instanceof UploadRequestError) return error.status === 0 ? 'network' : `http_${error.status}`;
  return 'unexpected_error';
}

/**
 * One package from draft to ready (spec §4): pack pass 1 (index, hence the exact archive size), create
 * the record (or reuse a resumable one), pack pass 2 streamed through part splitting, hashing and
 * upload, finalize, and for a patch resolve it into the resulting package. Never throws: the final
 * state is done or errored.
 */
export async function runPackageUpload(job: PackageUploadJob, context: PackageUploadContext): Promise<PackageUploadState> {
  let state = initialUploadState();
  const update = (change: Partial<PackageUploadState>) => {
    state = { ...state, ...change };
    context.onState(state);
  };
  const retrying = (status: PackageUploadStatus, retryStatus: PackageUploadStatus) => ({
    tries: context.tries,
    delayMs: context.retryDelayMs,
    sleep: context.sleep,
    signal: context.signal,
    onRetry: () => update({ status: retryStatus }),
    status,
  });
  const call = async <T>(status: PackageUploadStatus, retryStatus: PackageUploadStatus, attempt: () => Promise<T>): Promise<T> => {
    update({ status });
    return withRetries(async () => {
      if (state.status !== status) update({ status });
      return attempt();
    }, retrying(status, retryStatus));
  };
  // The record the server made (or the resumed one): deleted again when the upload is cancelled.
  let recordId: string | null = null;
  context.onState(state);
  try {
    await context.limiters.packing.run(async () => {
      update({ status: 'packing' });
      const { draft } = job;
      const base = draft.basePackage
        ? await withRetries(() => context.api.baseIndex(job.project, draft.basePackage!, context.signal), { ...retrying('packing', 'packing') })
        : undefined;
      const index = await indexTree(draft.tree, { ...UPLOAD_PACK_OPTIONS, base });
      context.signal.throwIfAborted();
      const { totalSize, patchSize } = archiveSize(index, { base });
      update({ size: totalSize, patchSize });
      let resume = job.resume && job.resume.size === totalSize ? job.resume : null;
      for (;;) {
        try {
          await uploadArchive(index, base, totalSize, resume);
          return;
        } catch (error) {
          // A resumed record the server no longer accepts: start over with a new one, once.
          if (!resume || !isStaleResume(error)) throw error;
          resume = null;
          update({ sentBytes: 0, progress: 0, parts: [] });
        }
      }
    });
  } catch (error) {
    if (!context.signal.aborted) {
      update({ status: 'errored', error: errorCode(error) });
      return state;
    }
    // Cancelled (the item removed, the dialog closed): no half-made package may stay behind.
    if (recordId) await discardRecord(recordId);
    update({ status: 'errored', error: 'request_aborted', packageId: null });
    return state;
  }
  update({ status: 'done', progress: 1 });
  return state;

  /**
   * Best effort, with one retry: a refusal (404: already gone) or a second failure leaves the record
   * to the storage sweep, which deletes uploads whose token expired.
   */
  async function discardRecord(packageId: string): Promise<void> {
    await withRetries(() => context.api.deletePackage(job.project, packageId), {
      tries: 2,
      delayMs: context.retryDelayMs,
      sleep: context.sleep,
    }).catch(() => undefined);
  }

  async function uploadArchive(index: ArchiveIndex, base: ArchiveIndex | undefined, size: number, resume: ResumeState | null): Promise<void> {
    const { draft } = job;
    let created: CreatedPackage;
    if (resume) {
      created = { id: resume.packageId, uploadInfo: resume.uploadInfo };
      recordId = created.id;
    } else {
      created = await call('creating', 'create_retrying', () =>
        context.api.createPackage(
          job.project,
          { size, title: draft.title, tags: draft.tags, entrypoint: draft.tree.entrypoint ?? null, basePackage: draft.basePackage },
          context.signal,
        ),
      );
      recordId = created.id;
      context.onCreated?.({ packageId: created.id, uploadInfo: created.uploadInfo, size, parts: [] });
    }
    if (created.uploadInfo.partHashAlgorithm !== 'sha1') throw Object.assign(new Error('unsupported part hash'), { code: 'unsupported_hash_algorithm' });
    update({ status: 'splitting', packageId: created.id });
    const packed = packArchive(index, { ...UPLOAD_PACK_OPTIONS, base });
    let acknowledgedBytes = 0;
    const parts = await streamParts({
      stream: packed.stream,
      target: { uploadUrl: created.uploadInfo.uploadUrl, token: created.uploadInfo.token, partSize: created.uploadInfo.partSize },
      acknowledged: new Map((resume?.parts ?? []).map((item) => [item.part, item])),
      hashing: context.limiters.hashing,
      uploading: context.limiters.uploading,
      signal: context.signal,
      fetch: context.fetch,
      tries: context.tries,
      retryDelayMs: context.retryDelayMs,
      sleep: context.sleep,
      onPartStatus: (part, status) => {
        const next = state.parts.slice();
        next[part] = status;
        update({ parts: next });
      },
      onSplitDone: () => update({ status: 'uploading' }),
      onPart: (descriptor, resent) => {
        if (resent) context.onPart?.(descriptor);
        acknowledgedBytes += descriptor.size;
        update({ sentBytes: state.sentBytes + (resent ? descriptor.size : 0), progress: roundProgress(acknowledgedBytes, size) });
      },
    });
    await call('finalizing', 'finalize_retrying', () => context.api.finalizePackage(job.project, created.id, created.uploadInfo.token, parts, context.signal));
    if (!draft.basePackage) return;
    const started = await call('resolving', 'resolve_retrying', () => context.api.resolvePackage(job.project, created.id, context.signal));
    for (;;) {
      const job = await call('resolving', 'resolve_retrying', () => context.api.jobState(started.token, context.signal));
      if (job.status === 'succeeded') {
        const output = job.output as { package?: unknown } | null;
        update({ packageId: typeof output?.package === 'string' ? output.package : created.id });
        return;
      }
      if (job.status === 'errored') throw Object.assign(new Error(job.error ?? 'resolve failed'), { code: 'unexpected_error' });
      await sleep(context.resolvePollMs ?? RESOLVE_POLL_MS, context.signal);
    }
  }
}
