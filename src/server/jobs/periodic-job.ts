import { z } from 'zod';
import type { Executor } from '../db/client.ts';
import type { Deps } from '../deps.ts';
import { defineJob, type JobContext, type JobHandle, type RunnableJob } from './define-job.ts';

/** A job kind that runs every everyMs: each run queues its successor; the composition root queues the first. */
export type PeriodicSchedule = {
  readonly everyMs: number;
  /** Queues the next run (default: everyMs from now by the database clock); one queued across all processes. */
  schedule(executor: Executor, delayMs?: number): Promise<void>;
};

export type PeriodicJobHandle<Kind extends string, Output> = JobHandle<Kind, Record<string, never>, Output> & PeriodicSchedule;

export function definePeriodicJob<Kind extends string, Output>(definition: {
  kind: Kind;
  everyMs: number;
  /** The dedupe key of its queued run (default: the kind). */
  dedupeKey?: string;
  run(deps: Deps, context: JobContext): Promise<Output>;
}): PeriodicJobHandle<Kind, Output> {
  const dedupeKey = definition.dedupeKey ?? definition.kind;
  const schedule = async (executor: Executor, delayMs = definition.everyMs) => {
    await job.enqueue(executor, {}, { dedupeKey, delayMs });
  };
  const job = defineJob({
    kind: definition.kind,
    payload: z.object({}),
    run: async (deps, _payload, context) => {
      // The successor is queued first, so a failure below cannot end the chain. While this run is not
      // 'queued' the successor can be; a process starting meanwhile queues no second one (dedupe key).
      context.assertHolds();
      await schedule(deps.db);
      return definition.run(deps, context);
    },
  });
  return { ...job, everyMs: definition.everyMs, schedule };
}

export function isPeriodicJob(job: RunnableJob): job is RunnableJob & PeriodicSchedule {
  return 'schedule' in job && 'everyMs' in job;
}

/** Makes sure each periodic job of the list has a run queued (every process tries; one row each results). */
export async function schedulePeriodicJobs(executor: Executor, jobs: readonly RunnableJob[]): Promise<void> {
  for (const job of jobs) if (isPeriodicJob(job)) await job.schedule(executor);
}
