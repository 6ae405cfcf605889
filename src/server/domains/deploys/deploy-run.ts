import { eq } from 'drizzle-orm';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { archiveSize } from '../../../shared/archive/index.ts';
import { extractArchive } from '../../../shared/archive/extract.ts';
import type { DeployOutput, DeployStage } from '../../../shared/schemas/deploy.ts';
import { deployCredentials, deploySites } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../errors.ts';
import type { JobContext } from '../../jobs/define-job.ts';
import { openArchiveStream, readPackageIndex } from '../packages/records/package-content.ts';
import { butlerMissing, findButler, runButlerPush } from './butler.ts';
import { prepareDeployFolder, removeDeployFolder, sweepDeployFolders } from './deploy-folders.ts';

export type DeployPayload = {
  siteId: string;
  packageId: string;
  versionId: string;
  versionTitle: string;
  channel: string;
};

/** How often stage progress and log lines are written while bytes flow (each write notifies every stream). */
const reportEveryMs = 250;

/** Progress and log lines of one stage, written at most every reportEveryMs (and at the end). */
function stageReporter(context: JobContext, stage: DeployStage) {
  let progress = 0;
  let lines: string[] = [];
  let lastWrite = 0;
  let writing: Promise<void> = Promise.resolve();
  // A failed write (the lease lost) is kept for flush(): a write in flight never rejects unheard.
  let failure: unknown;
  const write = () => {
    lastWrite = Date.now();
    const batch = lines;
    lines = [];
    const value = progress;
    writing = writing.then(async () => {
      if (failure !== undefined) return;
      try {
        if (batch.length > 0) await context.appendLog(batch);
        await context.setStage(stage, value);
      } catch (error) {
        failure = error;
      }
    });
  };
  return {
    progress(value: number) {
      progress = Math.min(1, Math.max(0, value));
      if (Date.now() - lastWrite >= reportEveryMs) write();
    },
    log(line: string) {
      lines.push(line);
      if (Date.now() - lastWrite >= reportEveryMs) write();
    },
    async flush() {
      write();
      await writing;
      if (failure !== undefined) throw failure;
    },
  };
}

/** The archive regenerated from our own storage, written to a file: the 'downloading' stage. */
async function downloadArchive(deps: Deps, context: JobContext, packageId: string, file: string): Promise<number> {
  const report = stageReporter(context, 'downloading');
  await context.setStage('downloading', 0);
  const index = await readPackageIndex(deps, packageId);
  const total = archiveSize(index).totalSize;
  const stream = await openArchiveStream(deps, packageId);
  const out = createWriteStream(file, { mode: 0o600 });
  let written = 0;
  try {
    for await (const piece of stream as unknown as AsyncIterable<Uint8Array>) {
      context.assertHolds();
      if (!out.write(piece)) await new Promise<void>((resolve) => out.once('drain', resolve));
      written += piece.byteLength;
      report.progress(total > 0 ? written / total : 1);
    }
  } finally {
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
  report.log(`Read ${written} bytes of the package from storage`);
  await report.flush();
  return written;
}

/** The archive unpacked by the shared extractor into an empty folder: the 'unpacking' stage. */
async function unpackArchive(context: JobContext, file: string, size: number, target: string): Promise<void> {
  const report = stageReporter(context, 'unpacking');
  await context.setStage('unpacking', 0);
  let read = 0;
  const counted = Bun.file(file)
    .stream()
    .pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(piece, controller) {
          context.assertHolds();
          read += piece.byteLength;
          report.progress(size > 0 ? read / size : 1);
          controller.enqueue(piece);
        },
      }),
    );
  await extractArchive(counted, target);
  report.log('Unpacked the package');
  await report.flush();
}

/** The site and its key, read when the job runs (the site or its credential may be gone since the deploy started). */
async function loadSite(deps: Deps, siteId: string) {
  const [row] = await deps.db
    .select({ provider: deploySites.provider, site: deploySites.site, sealedKey: deployCredentials.sealedKey })
    .from(deploySites)
    .innerJoin(deployCredentials, eq(deployCredentials.id, deploySites.credentialId))
    .where(eq(deploySites.id, siteId));
  if (!row) throw new AppError('not_found', 'The deploy site (or the credential it used) was deleted before the deploy ran');
  return row;
}

/**
 * One deploy job (spec §4 downloading, unpacking, uploading): the package's archive from our storage,
 * unpacked into the attempt's private folder, pushed with butler. The folder is removed at the end,
 * whatever the outcome. The key is opened only here, for butler's environment. Every step checks the
 * lease first, and butler is killed the moment it is lost (define-job.ts: a taken-over attempt stops).
 */
export async function runDeploy(deps: Deps, payload: DeployPayload, context: JobContext): Promise<DeployOutput> {
  const { jobId, attempt } = context;
  context.assertHolds();
  await sweepDeployFolders(deps).catch((error) => deps.log.error('deploy folders sweep failed', { error: String(error) }));
  context.assertHolds();
  const folder = await prepareDeployFolder(deps, jobId, attempt);
  try {
    const site = await loadSite(deps, payload.siteId);
    if (site.provider !== 'itch') throw new AppError('not_supported', 'Only itch.io deploys are supported');
    const butler = findButler(deps.config.deploys);
    if (!butler) throw butlerMissing();
    const target = `${site.site}:${payload.channel}`;
    await context.appendLog([`Deploying to ${target} as version ${payload.versionTitle}`]);

    const archive = join(folder, 'package.crt');
    const size = await downloadArchive(deps, context, payload.packageId, archive);
    const files = join(folder, 'files');
    await unpackArchive(context, archive, size, files);
    context.assertHolds();
    await rm(archive, { force: true });

    const home = join(folder, 'home');
    await mkdir(home, { mode: 0o700 });
    await context.setStage('uploading', 0);
    const report = stageReporter(context, 'uploading');
    let result: { buildId: number | null };
    try {
      result = await runButlerPush({
        butler,
        dir: files,
        target: site.site,
        channel: payload.channel,
        userVersion: payload.versionTitle,
        key: deps.keys.openSecret(site.sealedKey),
        itchApiUrl: deps.config.deploys.itchApiUrl,
        home,
        idleMs: deps.config.deploys.butlerIdleMs,
        signal: context.signal,
        onProgress: (progress) => report.progress(progress),
        onLog: (line) => report.log(line),
      });
    } finally {
      await report.flush();
    }
    if (result.buildId !== null) await context.appendLog([`Deployed: itch.io build ${result.buildId}`]);
    return { target, channel: payload.channel, buildId: result.buildId };
  } finally {
    await removeDeployFolder(deps, jobId, attempt).catch((error) => deps.log.error('deploy folder not removed', { job: jobId, attempt, error: String(error) }));
  }
}
