import { definePeriodicJob } from '../../../jobs/periodic-job.ts';
import { sweepStorage } from './storage-sweep.service.ts';

/** Every 6 hours: removes what crashes and abandoned uploads left in storage. */
export const storageSweepJob = definePeriodicJob({
  kind: 'storage_sweep',
  everyMs: 6 * 60 * 60_000,
  run: (deps) => sweepStorage(deps),
});
