import type { Deps } from '../deps.ts';
import { forgetExpiredSignInCounters } from '../domains/auth/sign-in-limits.ts';
import { applyRetention, enqueueRetentionForAllProjects, scheduleRetentionSweep } from '../domains/projects/retention.service.ts';
import { collectPackageBlobs } from '../domains/packages/chunk-gc.service.ts';
import { runResolve } from '../domains/packages/resolve.service.ts';
import { preparePackageDownloads } from '../domains/packages/downloads-prepare.ts';
import { scheduleStorageSweep, sweepStorage } from '../domains/packages/storage-sweep.service.ts';
import type { JobKind, JobKinds } from './kinds.ts';
import { deleteFinishedJobs, type Job } from './queue.ts';
import type { JobContext } from './worker.ts';

/** How long finished jobs stay in the table. */
const finishedJobsKeptMs = 7 * 24 * 60 * 60_000;

export type JobHandler<K extends JobKind> = (deps: Deps, job: Job<JobKinds[K]['payload']>, context: JobContext) => Promise<JobKinds[K]['output']>;

/** kind → handler; the mapped type makes a kind without a handler (or a mistyped one) a compile error. */
export const jobHandlers: { [K in JobKind]: JobHandler<K> } = {
  retention: (deps, job) => applyRetention(deps, job.payload.projectId),

  resolve: (deps, job) => runResolve(deps, job.payload.packageId),

  chunk_gc: (deps, job) => collectPackageBlobs(deps, job.payload),

  package_prepare: (deps, job) => preparePackageDownloads(deps, job.payload.packageId),

  retention_sweep: async (deps) => {
    // Queue the next sweep first, so a failure below cannot end the hourly chain. While this job runs it
    // is not 'queued', so the next one can be; a process starting meanwhile queues no second one.
    await scheduleRetentionSweep(deps.db);
    const projects = await enqueueRetentionForAllProjects(deps.db);
    deps.jobSignal.notify();
    // Finished jobs are kept a week (their outputs are what clients and operators look at), then forgotten.
    const jobsForgotten = await deleteFinishedJobs(deps.db, finishedJobsKeptMs);
    const signInCountersForgotten = await forgetExpiredSignInCounters(deps.db);
    return { projects, jobsForgotten, signInCountersForgotten };
  },

  storage_sweep: async (deps) => {
    await scheduleStorageSweep(deps.db); // first, as for retention_sweep
    return sweepStorage(deps);
  },
};
