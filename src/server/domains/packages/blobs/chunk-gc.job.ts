import { z } from 'zod';
import type { Executor } from '../../../db/client.ts';
import { defineJob } from '../../../jobs/define-job.ts';
import { collectPackageBlobs, type ChunkCollectionPayload } from './chunk-gc.service.ts';

/** Deletes a deleted package's index, upload parts and the chunk blobs no other package uses. */
export const chunkCollectionJob = defineJob({
  kind: 'chunk_gc',
  payload: z.object({ packageId: z.string(), projectId: z.string(), compression: z.union([z.literal(0), z.literal(1)]) }),
  run: (deps, payload) => collectPackageBlobs(deps, payload),
});

/** Queued in the transaction that deletes the package rows; one queued per package. */
export async function enqueueChunkCollection(db: Executor, payload: ChunkCollectionPayload): Promise<void> {
  await chunkCollectionJob.enqueue(db, payload, { dedupeKey: `package:${payload.packageId}` });
}
