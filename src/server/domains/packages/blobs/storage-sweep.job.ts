import { definePeriodicJob } from '../../../jobs/periodic-job.ts';
import { sweepContentImageStorage } from '../../content-images/collect.service.ts';
import { ChunkStoreBusy } from './chunk-store-lock.ts';
import { sweepStorage } from './storage-sweep.service.ts';

/**
 * Every 6 hours: removes what crashes and abandoned uploads left in storage (packages', then content
 * images'). While a backup holds the chunk store the packages' part stops where it is (its output says
 * so) and the next run does the rest: every step is repeatable.
 */
export const storageSweepJob = definePeriodicJob({
  kind: 'storage_sweep',
  everyMs: 6 * 60 * 60_000,
  run: async (deps, context) => {
    const packages = await sweepStorage(deps, Date.now(), context.signal).catch((error: unknown) => {
      if (error instanceof ChunkStoreBusy) return { leftForNextRun: error.message };
      throw error;
    });
    context.assertHolds();
    return { ...packages, contentImages: await sweepContentImageStorage(deps) };
  },
});
