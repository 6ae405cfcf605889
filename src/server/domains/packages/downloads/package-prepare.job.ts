import { z } from 'zod';
import type { Executor } from '../../../db/client.ts';
import { defineJob } from '../../../jobs/define-job.ts';
import { preparePackageDownloads } from './prepare-downloads.ts';

/** Computes a ready package's ZIP CRC-32s, ZIP file and torrent ahead of the first download. */
export const packagePrepareJob = defineJob({
  kind: 'package_prepare',
  payload: z.object({ packageId: z.string() }),
  run: (deps, payload, context) => preparePackageDownloads(deps, payload.packageId, context.signal),
});

/** Queued in the transaction that makes the package ready; one queued per package. */
export async function enqueuePackagePrepare(db: Executor, projectId: string, packageId: string): Promise<void> {
  await packagePrepareJob.enqueue(db, { packageId }, { projectId, dedupeKey: `package:${packageId}` });
}
