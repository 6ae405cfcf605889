import type { ApiClient } from '../shared/api/client.ts';
import { blobPartSource, rangeParts } from '../shared/upload/parts.ts';
import { runUploadSession } from '../shared/upload/session.ts';
import type { CliIo } from './io.ts';
import { startProgress, type Progress } from './progress.ts';
import type { PushCache, PushState } from './push-state.ts';

export type PackageRequest = { title?: string; tags: string[]; entrypoint: string[] | null };
export type UploadOutcome = { packageId: string; sentBytes: number; sentParts: number; totalParts: number; resumed: boolean };
type Context = {
  api: ApiClient;
  io: CliIo;
  projectId: string;
  cache: PushCache;
  state: PushState;
  save: (state: PushState) => Promise<void>;
  quiet: boolean;
};

/** How often a patch's resolve job is asked for when its event stream is unavailable. */
const JOB_POLL_MS = 1000;

/**
 * The packed archive through the shared upload session (src/shared/upload/session.ts): creates the
 * package (or continues the one an interrupted run created, if the server still has it), sends the
 * parts the server has not acknowledged from the file on disk, finalizes and resolves a patch. The
 * session's record lives in the push-state file, saved before each step counts, so a killed push
 * continues where it stopped. Returns the ready package's id and what this run sent.
 */
export async function uploadPackage(context: Context, request: PackageRequest): Promise<UploadOutcome> {
  const { io, state, quiet } = context;
  const archive = blobPartSource(Bun.file(context.cache.archivePath).slice(0, state.archiveSize));
  const saveRecord = (record: PushState['upload']) => {
    state.upload = record;
    return context.save(state);
  };
  let progress: Progress | undefined;
  let alreadyBytes = 0;
  let sentBytes = 0;
  let toldResolving = false;
  let toldFinalizing = false;
  const outcome = await runUploadSession({
    api: context.api,
    project: context.projectId,
    package: { title: request.title, tags: request.tags, entrypoint: request.entrypoint, basePackage: state.basePackage },
    // Packed to disk beforehand (push.ts): the parts are read from the file, acknowledged ones skipped unread.
    prepare: async () => ({ size: state.archiveSize, patchSize: null, parts: (partSize, acknowledged) => rangeParts(archive, partSize, acknowledged) }),
    resume: state.upload,
    persistence: { save: saveRecord, savePart: (_descriptor, record) => saveRecord(record), forget: () => saveRecord(undefined) },
    signal: io.signal,
    jobs: { events: true, pollMs: JOB_POLL_MS },
    onState: (current) => {
      if (current.status === 'splitting' && !progress) {
        alreadyBytes = (state.upload?.parts ?? []).reduce((sum, part) => sum + part.size, 0);
        progress = startProgress(io, 'uploading', state.archiveSize, { quiet });
        progress.update(alreadyBytes);
      } else if (current.status === 'finalizing' && !toldFinalizing) {
        progress?.finish();
        progress = undefined;
        toldFinalizing = true;
        if (!quiet) io.stderr('finalizing the package on the server...\n');
      } else if (current.status === 'resolving' && !toldResolving) {
        toldResolving = true;
        if (!quiet) io.stderr('resolving the patch on the server...\n');
      }
    },
    onPart: (descriptor, { resent, acknowledgedParts, totalParts }) => {
      if (!resent) return;
      sentBytes += descriptor.size;
      // The session's own count, taken as this part settled: the record's list is shared by parts still saving.
      if (!io.isTTY && !quiet) io.stderr(`part ${descriptor.part} acknowledged (${acknowledgedParts}/${totalParts})\n`);
      progress?.update(alreadyBytes + sentBytes);
    },
    onNotice: (message) => io.stderr(`${message}\n`),
  });
  return { packageId: outcome.packageId, sentBytes: outcome.sentBytes, sentParts: outcome.sentParts, totalParts: outcome.totalParts, resumed: outcome.resumed };
}
