import { definePeriodicJob } from '../../../jobs/periodic-job.ts';
import { ChunkStoreBusy } from '../../../storage/chunk-store-lock.ts';
import { sweepStorage } from './storage-sweep.service.ts';

/**
 * Every 6 hours: removes what crashes and abandoned uploads left in the packages' storage (content
 * images sweep theirs in a job of their own: content-images/storage-sweep.job.ts). While a backup holds
 * the chunk store the run stops where it is (its output says so) and the next run does the rest: every
 * step is repeatable.
 */
export const storageSweepJob = definePeriodicJob({
  kind: 'storage_sweep',
  everyMs: 6 * 60 * 60_000,
  run: (deps, context) =>
    sweepStorage(deps, Date.now(), context.signal).catch((error: unknown) => {
      if (error instanceof ChunkStoreBusy) return { leftForNextRun: error.message };
      throw error;
    }),
});
