import { definePeriodicJob } from '../../jobs/periodic-job.ts';
import { sweepContentImageStorage } from './collect.service.ts';

/**
 * Every 6 hours, like the packages' storage sweep: removes the image blobs crashes left (rows gone,
 * parts of finished images, sizes nobody lists: sweepContentImageStorage). A batch a backup holds back
 * is left for the next run.
 */
export const contentImagesStorageSweepJob = definePeriodicJob({
  kind: 'content_images_storage_sweep',
  everyMs: 6 * 60 * 60_000,
  run: (deps) => sweepContentImageStorage(deps),
});
