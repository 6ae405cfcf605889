import { sql } from 'drizzle-orm';
import type { DatabaseHandle, Executor } from '../db/client.ts';
import { channelSubscriberCount, subscribeChannel } from '../db/notify.ts';

/**
 * Cross-process job notifications (DESIGN.md "Jobs and events"): whoever changes a job's status or
 * progress sends NOTIFY on 'job_events' with the job id as payload; every process LISTENs and its
 * event streams re-read the row. The payload is the id only, so nothing relies on it being complete
 * (a listener that reconnects can miss some: streams also poll).
 * PostgreSQL delivers a NOTIFY sent inside a transaction at commit, so listeners never read too early.
 */
const jobEventsChannel = 'job_events';

/** Sends the notification for one job (inside the caller's transaction when given one). */
export async function publishJobUpdate(db: Executor, jobId: string): Promise<void> {
  await db.execute(sql`select pg_notify(${jobEventsChannel}, ${jobId})`);
}

export type JobUpdateListener = (jobId: string) => void;

/**
 * Calls listener with the id of every job updated from now on (by any process on this database). The
 * promise resolves once the LISTEN is in place, so a caller reading state afterwards misses nothing.
 */
export function subscribeJobUpdates(database: DatabaseHandle, listener: JobUpdateListener): Promise<() => void> {
  return subscribeChannel(database, jobEventsChannel, { onMessage: listener });
}

/** How many job-event subscribers this process has (tests check that streams clean up). */
export function jobUpdateSubscriberCount(database: DatabaseHandle): number {
  return channelSubscriberCount(database, jobEventsChannel);
}
