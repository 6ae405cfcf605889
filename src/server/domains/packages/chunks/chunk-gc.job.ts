import { z } from 'zod';
import type { Executor } from '../../../db/client.ts';
import { defineJob, JobDeferred } from '../../../jobs/define-job.ts';
import { ChunkStoreBusy } from '../../../storage/chunk-store-lock.ts';
import { collectPackageBlobs, type ChunkCollectionPayload } from './chunk-gc.service.ts';

/** How soon a collection a backup held up tries again. */
const backupRetryMs = 60_000;

/** Deletes a deleted package's index, upload parts and the chunk blobs no other package uses. */
export const chunkCollectionJob = defineJob({
  kind: 'chunk_gc',
  payload: z.object({ packageId: z.string(), projectId: z.string(), compression: z.union([z.literal(0), z.literal(1)]) }),
  run: async (deps, payload, context) => {
    try {
      return await collectPackageBlobs(deps, payload, context.signal);
    } catch (error) {
      // A backup is copying the blobs: collect after it (the run is repeatable, the index goes last).
      if (error instanceof ChunkStoreBusy) throw new JobDeferred(error.message, backupRetryMs);
      throw error;
    }
  },
});

/** Queued in the transaction that deletes the package rows; one queued per package. */
export async function enqueueChunkCollection(db: Executor, payload: ChunkCollectionPayload): Promise<void> {
  await chunkCollectionJob.enqueue(db, payload, { dedupeKey: `package:${payload.packageId}` });
}
