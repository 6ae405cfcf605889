import { asc } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.ts';
import { branches } from '../../db/schema/index.ts';
import { defineJob } from '../../jobs/define-job.ts';
import { definePeriodicJob } from '../../jobs/periodic-job.ts';
import { applyRetention } from './retention.service.ts';

/** Enforces branch retention on one project (retention.service.ts applyRetention). */
export const retentionJob = defineJob({
  kind: 'retention',
  payload: z.object({ projectId: z.string() }),
  run: (deps, payload) => applyRetention(deps, payload.projectId),
});

/**
 * Queues the project's retention run, unless one is already queued (it will see this change: it takes
 * the project lock, so it runs after the caller's transaction commits). Call deps.jobSignal.notify()
 * after the commit to run it at once in this process.
 */
export async function enqueueRetention(db: Executor, projectId: string): Promise<void> {
  await retentionJob.enqueue(db, { projectId }, { projectId, dedupeKey: projectId });
}

/** Queues a retention run for every project that has branches; returns how many projects. */
async function enqueueRetentionForAllProjects(db: Executor): Promise<number> {
  const rows = await db.select({ projectId: branches.projectId }).from(branches).groupBy(branches.projectId).orderBy(asc(branches.projectId));
  for (const row of rows) await enqueueRetention(db, row.projectId);
  return rows.length;
}

/** Hourly, so time limits apply without new publishes: a retention run for every project with branches. */
export const retentionSweepJob = definePeriodicJob({
  kind: 'retention_sweep',
  everyMs: 60 * 60_000,
  dedupeKey: 'sweep',
  run: async (deps) => {
    const projects = await enqueueRetentionForAllProjects(deps.db);
    deps.jobSignal.notify();
    return { projects };
  },
});
