import { definePeriodicJob } from '../../../jobs/periodic-job.ts';
import { sweepContentImageStorage } from '../../content-images/collect.service.ts';
import { sweepStorage } from './storage-sweep.service.ts';

/** Every 6 hours: removes what crashes and abandoned uploads left in storage (packages', then content images'). */
export const storageSweepJob = definePeriodicJob({
  kind: 'storage_sweep',
  everyMs: 6 * 60 * 60_000,
  run: async (deps) => ({ ...(await sweepStorage(deps)), contentImages: await sweepContentImageStorage(deps) }),
});
