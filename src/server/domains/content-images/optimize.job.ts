import { z } from 'zod';
import { defineJob } from '../../jobs/define-job.ts';
import { optimizeContentImages } from './optimize-run.ts';

/**
 * Re-encodes every content image's sizes (optimize-run.ts); queued by optimize.service.ts, one at a time.
 * On the maintenance lane: on a large instance it runs for hours, which must not hold up resolves and sweeps.
 */
export const optimizeContentImagesJob = defineJob({
  kind: 'content_images_optimize',
  lane: 'maintenance',
  payload: z.object({}),
  run: (deps, _payload, context) => optimizeContentImages(deps, context),
});
