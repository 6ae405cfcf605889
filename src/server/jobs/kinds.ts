import type { RetentionResult } from '../domains/projects/retention.service.ts';
import type { ChunkCollectionPayload } from '../domains/packages/chunk-gc.service.ts';
import type { StorageSweepResult } from '../domains/packages/storage-sweep.service.ts';

/**
 * Every job kind with its payload and output (both stored as jsonb). Types only, so the queue, the
 * services that enqueue and the handlers can share it without importing each other.
 * SEAM (packages issue): resolve, deploy and image kinds join here, with their handlers in handlers.ts.
 */
export type JobKinds = {
  /** Enforces branch retention on one project (retention.service applyRetention). */
  retention: { payload: { projectId: string }; output: RetentionResult };
  /** Checks a finalized patch against its base's chunks and marks it ready (packages resolve.service). */
  resolve: { payload: { packageId: string }; output: { package: string } };
  /** Deletes a deleted package's index, upload parts and chunk blobs no other package uses (chunk-gc.service). */
  chunk_gc: { payload: ChunkCollectionPayload; output: { deletedChunks: number } };
  /** Computes a ready package's ZIP CRC-32s and torrent ahead of the first download (packages downloads-prepare). */
  package_prepare: { payload: { packageId: string }; output: { prepared: boolean } };
  /**
   * Hourly: queues a retention job for every project that has branches, forgets jobs finished over a
   * week ago and sign-in counters whose window ended, and queues itself again.
   */
  retention_sweep: { payload: Record<string, never>; output: { projects: number; jobsForgotten: number; signInCountersForgotten: number } };
  /** Every 6 hours: removes what crashes and abandoned uploads left in storage (packages storage-sweep.service). */
  storage_sweep: { payload: Record<string, never>; output: StorageSweepResult };
};

export type JobKind = keyof JobKinds;

/** Known kinds get their payload type checked; other kinds (tests, future kinds) take anything JSON. */
export type PayloadOf<K extends string> = K extends JobKind ? JobKinds[K]['payload'] : unknown;
export type OutputOf<K extends string> = K extends JobKind ? JobKinds[K]['output'] : unknown;
