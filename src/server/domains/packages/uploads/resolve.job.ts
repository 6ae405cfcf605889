import { z } from 'zod';
import { defineJob } from '../../../jobs/define-job.ts';
import { resolvePatch } from './resolve-patch.ts';

/** Checks a finalized patch against its base's chunks and marks it ready; output { package: id }. */
export const resolveJob = defineJob({
  kind: 'resolve',
  payload: z.object({ packageId: z.string() }),
  run: (deps, payload, context) => resolvePatch(deps, payload.packageId, context.signal),
});
