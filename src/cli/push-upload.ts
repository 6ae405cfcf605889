import type { CreatedPackage, Package, ResolveJob } from '../shared/schemas/packages.ts';
import { blobPartSource, countParts, UploadRequestError, uploadParts, type PartDescriptor } from '../shared/upload/index.ts';
import { Api, segment } from './api.ts';
import { CliError, exitCodes } from './errors.ts';
import { waitForJob } from './jobs.ts';
import { startProgress } from './progress.ts';
import type { PushCache, PushState } from './push-state.ts';

export type PackageRequest = { title?: string; tags: string[]; entrypoint: string[] | null };
export type UploadOutcome = { packageId: string; sentBytes: number; sentParts: number; totalParts: number; resumed: boolean };
type Context = {
  api: Api;
  projectId: string;
  cache: PushCache;
  state: PushState;
  save: (state: PushState) => Promise<void>;
  quiet: boolean;
  retryDelayMs: number;
};

/** The package an earlier run created, if the server still has it. */
async function findEarlierPackage(api: Api, projectId: string, packageId: string): Promise<Package | undefined> {
  try {
    return await api.get<Package>(`/projects/${segment(projectId)}/packages/${segment(packageId)}`);
  } catch (error) {
    if (error instanceof UploadRequestError && error.code === 'not_found') return undefined;
    throw error;
  }
}

async function createPackage(context: Context, request: PackageRequest): Promise<NonNullable<PushState['upload']>> {
  const { api, projectId, state } = context;
  const created = await api.request<CreatedPackage>('POST', `/projects/${segment(projectId)}/packages`, {
    size: state.archiveSize,
    title: request.title,
    tags: request.tags,
    entrypoint: request.entrypoint,
    basePackage: state.basePackage,
  });
  const { token, uploadUrl, partSize, partHashAlgorithm } = created.uploadInfo;
  if (partHashAlgorithm !== 'sha1') throw new CliError(exitCodes.server, `unsupported_hash_algorithm: ${partHashAlgorithm}`);
  return { packageId: created.id, token, uploadUrl: new URL(uploadUrl, api.server).toString(), partSize, parts: [] };
}

async function sendParts(context: Context, upload: NonNullable<PushState['upload']>): Promise<{ parts: PartDescriptor[]; sentBytes: number; sentParts: number }> {
  const { api, state, save, quiet } = context;
  const { io } = api.options;
  const totalParts = countParts(state.archiveSize, upload.partSize);
  const alreadyBytes = upload.parts.reduce((sum, part) => sum + part.size, 0);
  const progress = startProgress(io, 'uploading', state.archiveSize, { quiet });
  progress.update(alreadyBytes);
  const result = await uploadParts({
    target: upload,
    source: blobPartSource(Bun.file(context.cache.archivePath).slice(0, state.archiveSize)),
    acknowledged: upload.parts,
    retryDelayMs: context.retryDelayMs,
    fetch: io.fetch,
    signal: io.signal,
    onPart: async (descriptor) => {
      upload.parts.push(descriptor);
      const count = upload.parts.length;
      await save(state);
      if (!io.isTTY && !quiet) io.stderr(`part ${descriptor.part} acknowledged (${count}/${totalParts})\n`);
    },
    onProgress: (sent) => progress.update(alreadyBytes + sent),
    onRetry: (part, failedTry, error) => io.stderr(`part ${part}: ${error.message}; trying again (${failedTry + 1}/3)\n`),
  });
  progress.finish();
  return result;
}

/** A patch becomes a package through its resolve job; its output names the resulting package. */
async function resolvePatch(context: Context, packageId: string): Promise<string> {
  const { api, projectId, state, save } = context;
  state.resolveJob ??= await api.request<ResolveJob>('POST', `/projects/${segment(projectId)}/packages/${segment(packageId)}/resolve`);
  await save(state);
  if (!context.quiet) api.options.io.stderr('resolving the patch on the server...\n');
  const job = await waitForJob(api, state.resolveJob.token);
  if (job.status === 'errored') throw new CliError(exitCodes.server, `resolving the patch failed: ${job.error ?? 'unknown error'}`);
  const output = job.output as { package?: unknown } | null;
  return typeof output?.package === 'string' ? output.package : packageId;
}

/**
 * Creates the package (or continues the one an interrupted run created), sends the missing parts,
 * finalizes and resolves a patch. Returns the ready package's id and what this run sent.
 */
export async function uploadPackage(context: Context, request: PackageRequest): Promise<UploadOutcome> {
  const { api, projectId, state, save } = context;
  let resumed = false;
  if (state.upload) {
    const existing = await findEarlierPackage(api, projectId, state.upload.packageId);
    if (existing) {
      resumed = true;
      // Finalize may have succeeded just before the interruption, unrecorded: the server knows.
      if (existing.status !== 'uploading') state.finalized = { status: existing.status };
    } else {
      state.upload = undefined;
      state.finalized = undefined;
      state.resolveJob = undefined;
    }
  }
  let sentBytes = 0;
  let sentParts = 0;
  for (let attempt = 0; ; attempt++) {
    state.upload ??= await createPackage(context, request);
    await save(state);
    if (state.finalized) break;
    try {
      const result = await sendParts(context, state.upload);
      sentBytes += result.sentBytes;
      sentParts += result.sentParts;
      const finalized = await api.request<Package>('PUT', `/projects/${segment(projectId)}/packages/${segment(state.upload.packageId)}/finalize`, {
        token: state.upload.token,
        parts: result.parts,
      });
      state.finalized = { status: finalized.status };
      await save(state);
      break;
    } catch (error) {
      // The token of a resumed upload expired: start a fresh package once.
      if (resumed && attempt === 0 && error instanceof UploadRequestError && error.code === 'wrong_auth') {
        api.options.io.stderr('the earlier upload expired on the server; starting over\n');
        state.upload = undefined;
        resumed = false;
        continue;
      }
      throw error;
    }
  }
  const upload = state.upload!;
  const packageId = state.basePackage && state.finalized?.status !== 'ready' ? await resolvePatch(context, upload.packageId) : upload.packageId;
  // An errored full package cannot be used; a patch's errored resolve was retried by resolvePatch.
  if (!state.basePackage && state.finalized?.status === 'errored') throw new CliError(exitCodes.server, 'the server could not store the package');
  return { packageId, sentBytes, sentParts, totalParts: countParts(state.archiveSize, upload.partSize), resumed };
}
