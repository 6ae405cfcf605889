import { archiveSize, indexTree, packArchive } from '../../shared/archive/index.ts';
import type { ApiClient } from '../../shared/api/client.ts';
import { fetchBaseIndex } from '../../shared/upload/base-index.ts';
import { splitStream } from '../../shared/upload/parts.ts';
import type { UploadPersistence, UploadRecord } from '../../shared/upload/record.ts';
import { runUploadSession, type PreparedArchive, type UploadLimiters } from '../../shared/upload/session.ts';
import { initialUploadState, type PackageUploadState } from '../../shared/upload/statuses.ts';
import type { PackageDraft } from './package-draft.ts';
import { UPLOAD_PACK_OPTIONS } from './upload-constants.ts';

export type PackageUploadContext = {
  /** The worker's client: its retry policy is spec §9's (3 tries, 5 s apart). */
  api: ApiClient;
  limiters: UploadLimiters;
  signal: AbortSignal;
  resolvePollMs?: number;
  /** Every change of the package's state (a fresh object each time). */
  onState(state: PackageUploadState): void;
  /** Resume bookkeeping: the record was made or changed, a part was acknowledged. */
  persistence: UploadPersistence;
};

export type PackageUploadJob = { project: string; draft: PackageDraft; resume?: UploadRecord | null };

/**
 * The browser's archive: pack pass 1 (the index, hence the exact archive size) against the base
 * package's index for an update; pass 2 streamed straight into the parts, nothing written anywhere.
 */
function prepareDraft(api: ApiClient, project: string, draft: PackageDraft) {
  return async (signal: AbortSignal): Promise<PreparedArchive> => {
    const base = draft.basePackage ? await fetchBaseIndex(api, project, draft.basePackage, { signal }) : undefined;
    const index = await indexTree(draft.tree, { ...UPLOAD_PACK_OPTIONS, base });
    signal.throwIfAborted();
    const { totalSize, patchSize } = archiveSize(index, { base });
    return { size: totalSize, patchSize, parts: (partSize) => splitStream(packArchive(index, { ...UPLOAD_PACK_OPTIONS, base }).stream, partSize) };
  };
}

/**
 * One package from draft to ready through the shared upload session (src/shared/upload/session.ts):
 * packed in this worker, parts streamed as they are packed; cancelling deletes the record. Never
 * throws: the final state is done or errored.
 */
export async function runPackageUpload(job: PackageUploadJob, context: PackageUploadContext): Promise<PackageUploadState> {
  const { draft } = job;
  let last = initialUploadState();
  try {
    const outcome = await runUploadSession({
      api: context.api,
      project: job.project,
      package: { title: draft.title, tags: draft.tags, entrypoint: draft.tree.entrypoint ?? null, basePackage: draft.basePackage },
      prepare: prepareDraft(context.api, job.project, draft),
      resume: job.resume,
      persistence: context.persistence,
      limiters: context.limiters,
      signal: context.signal,
      jobs: { pollMs: context.resolvePollMs },
      discardOnAbort: true,
      onState: (state) => {
        last = state;
        context.onState(state);
      },
    });
    return outcome.state;
  } catch {
    // The session reported the errored state (its code) before throwing.
    return last;
  }
}
