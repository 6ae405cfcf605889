import { definePeriodicJob } from '../../jobs/periodic-job.ts';
import { collectContentImages } from './collect.service.ts';

/** Every hour: removes content images no description references (collect.service.ts). */
export const contentImagesCollectJob = definePeriodicJob({
  kind: 'content_images_collect',
  everyMs: 60 * 60_000,
  run: (deps) => collectContentImages(deps),
});
