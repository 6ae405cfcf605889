import { forgetExternalAuthFlowsJob } from './domains/auth/external/external-auth-flows.job.ts';
import { forgetSignInCountersJob } from './domains/auth/sign-in-counters.job.ts';
import { cloudPlaySweepJob } from './domains/cloud-play/cloud-play-sweep.job.ts';
import { contentImagesCollectJob } from './domains/content-images/collect.job.ts';
import { optimizeContentImagesJob } from './domains/content-images/optimize.job.ts';
import { contentImagesStorageSweepJob } from './domains/content-images/storage-sweep.job.ts';
import { deployJob } from './domains/deploys/deploy.job.ts';
import { chunkCollectionJob } from './domains/packages/chunks/chunk-gc.job.ts';
import { storageSweepJob } from './domains/packages/chunks/storage-sweep.job.ts';
import { packagePrepareJob } from './domains/packages/downloads/package-prepare.job.ts';
import { orphanPackagesCollectJob } from './domains/packages/records/orphan-collect.job.ts';
import { resolveJob } from './domains/packages/uploads/resolve.job.ts';
import { retentionJob, retentionSweepJob } from './domains/projects/retention.job.ts';
import type { RunnableJob } from './jobs/define-job.ts';
import { forgetFinishedJobsJob } from './jobs/forget-finished-jobs.job.ts';

/**
 * Every job kind this server runs (how to add one: src/server/jobs/define-job.ts). The workers claim
 * these kinds only; the periodic ones among them are scheduled at start (serve.ts).
 */
export const serverJobs: readonly RunnableJob[] = [
  retentionJob,
  retentionSweepJob,
  resolveJob,
  packagePrepareJob,
  chunkCollectionJob,
  storageSweepJob,
  forgetFinishedJobsJob,
  forgetSignInCountersJob,
  forgetExternalAuthFlowsJob,
  cloudPlaySweepJob,
  deployJob,
  contentImagesCollectJob,
  contentImagesStorageSweepJob,
  optimizeContentImagesJob,
  orphanPackagesCollectJob,
];
