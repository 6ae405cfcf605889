import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { jobs } from '../db/schema/index.ts';
import { maxJobLogLineLength, maxJobLogLines } from '../../shared/schemas/jobs.ts';
import { publishJobUpdate } from './notify.ts';

/**
 * The job queue's operations (DESIGN.md "Jobs and events"). Every time comes from the database clock
 * (now()), so processes with skewed clocks agree on what is due and when a lease ends. Claims, progress
 * and outcomes send a job_events NOTIFY (notify.ts) for the event streams of every process.
 */

export type Job<Payload = unknown> = Omit<typeof jobs.$inferSelect, 'payload'> & { payload: Payload };

/** How a job is queued, besides its kind and payload (define-job.ts handles take these). */
export type EnqueueOptions = {
  projectId?: string | null;
  /** Not before this time (default: now). */
  runAt?: Date;
  /** Not before now + delayMs by the database clock (instead of runAt). */
  delayMs?: number;
  /** At most one queued job per (kind, dedupeKey): enqueuing a duplicate does nothing. */
  dedupeKey?: string | null;
  maxAttempts?: number;
};

export type EnqueueJobInput<Payload> = EnqueueOptions & { kind: string; payload: Payload };

/** Longest automatic retry delay; the first retry waits 5 s, then 10 s, 20 s, ... */
const maxRetryDelayMs = 5 * 60_000;
const firstRetryDelayMs = 5_000;

/** Milliseconds as a SQL interval from a parameter (typed explicitly: postgres.js and PGlite agree). */
const milliseconds = (ms: number) => sql`(${String(Math.max(0, Math.round(ms)))})::bigint * interval '1 millisecond'`;

/**
 * Queues a job; returns it, or undefined when a queued job of the same kind and dedupeKey exists (the
 * partial unique index makes that hold across processes: ON CONFLICT DO NOTHING on it). Pass a
 * transaction to make the job part of the change that needs it.
 */
export async function enqueueJob<Payload>(db: Executor, input: EnqueueJobInput<Payload>): Promise<Job<Payload> | undefined> {
  const [row] = await db
    .insert(jobs)
    .values({
      id: newId(),
      kind: input.kind,
      payload: input.payload ?? {},
      projectId: input.projectId ?? null,
      runAt: input.runAt ?? (input.delayMs !== undefined ? sql`now() + ${milliseconds(input.delayMs)}` : sql`now()`),
      dedupeKey: input.dedupeKey ?? null,
      maxAttempts: input.maxAttempts ?? 3,
    })
    // The predicate must repeat the index's literally for PostgreSQL to infer the partial index.
    .onConflictDoNothing({ target: [jobs.kind, jobs.dedupeKey], where: sql`status = 'queued'` })
    .returning();
  return row as Job<Payload> | undefined;
}

export type ClaimOptions = { workerId: string; kinds: readonly string[]; leaseMs: number };

/**
 * Takes the oldest due job of the given kinds for workerId, or undefined. Due: queued with run_at
 * passed, or running under a lease that ended (its worker died). One UPDATE over a FOR UPDATE SKIP
 * LOCKED subquery: concurrent claimers never block on, nor take, the same row. attempts counts claims.
 */
export async function claimJob(db: Executor, options: ClaimOptions): Promise<Job | undefined> {
  if (options.kinds.length === 0) return undefined;
  const kinds = sql.join(
    options.kinds.map((kind) => sql`${kind}`),
    sql`, `,
  );
  const [row] = await db
    .update(jobs)
    .set({
      status: 'running',
      attempts: sql`${jobs.attempts} + 1`,
      lockedBy: options.workerId,
      lockedUntil: sql`now() + ${milliseconds(options.leaseMs)}`,
    })
    .where(
      eq(
        jobs.id,
        sql`(select j.id from jobs j
          where j.kind in (${kinds})
            and ((j.status = 'queued' and j.run_at <= now()) or (j.status = 'running' and j.locked_until < now()))
          order by j.run_at, j.id
          limit 1
          for update skip locked)`,
      ),
    )
    .returning();
  if (row) await publishJobUpdate(db, row.id);
  return row;
}

/**
 * Which claim a write comes from: the worker and the claim's attempt number (its fencing token: every
 * claim, a takeover too, counts one up). The worker always passes the attempt.
 */
export type JobHold = { id: string; workerId: string; attempt?: number };

/**
 * Only the lease holder writes to or finishes a job: an attempt whose lease ended and was taken over
 * (by another worker, or by its own worker id claiming it again) changes nothing.
 */
const heldBy = (hold: JobHold) =>
  and(eq(jobs.id, hold.id), eq(jobs.status, 'running'), eq(jobs.lockedBy, hold.workerId), hold.attempt === undefined ? undefined : eq(jobs.attempts, hold.attempt));

/** Marks the job succeeded with its output; false when workerId no longer holds it. */
export async function completeJob(db: Executor, input: JobHold & { output: unknown }): Promise<boolean> {
  const updated = await db
    .update(jobs)
    .set({ status: 'succeeded', output: input.output ?? null, error: null, lockedBy: null, lockedUntil: null, finishedAt: sql`now()` })
    .where(heldBy(input))
    .returning({ id: jobs.id });
  if (updated.length === 0) return false;
  await publishJobUpdate(db, input.id);
  return true;
}

/**
 * Records a failure. With attempts left the job is queued again after a backoff (5 s doubling up to
 * 5 min, or retryDelayMs); otherwise, when a queued job with the same dedupe key already exists (it
 * will do the same work), or when the failure is permanent (retrying cannot help), it ends 'errored'
 * with the message. Returns the resulting status, undefined when workerId no longer holds the job.
 */
export async function failJob(
  db: Executor,
  input: JobHold & { error: string; retryDelayMs?: number; permanent?: boolean },
): Promise<'queued' | 'errored' | undefined> {
  const retry = input.permanent
    ? sql`false`
    : sql`(${jobs.attempts} < ${jobs.maxAttempts} and not exists (
    select 1 from jobs d where d.kind = jobs.kind and d.dedupe_key = jobs.dedupe_key and d.status = 'queued'))`;
  const delay =
    input.retryDelayMs !== undefined
      ? milliseconds(input.retryDelayMs)
      : sql`least(${firstRetryDelayMs}::bigint * power(2, greatest(${jobs.attempts} - 1, 0)), ${maxRetryDelayMs}::bigint) * interval '1 millisecond'`;
  const [row] = await db
    .update(jobs)
    .set({
      status: sql`case when ${retry} then 'queued' else 'errored' end`,
      runAt: sql`case when ${retry} then now() + ${delay} else ${jobs.runAt} end`,
      finishedAt: sql`case when ${retry} then null else now() end`,
      error: input.error.slice(0, 4000),
      lockedBy: null,
      lockedUntil: null,
    })
    .where(heldBy(input))
    .returning({ status: jobs.status });
  if (!row) return undefined;
  await publishJobUpdate(db, input.id);
  return row.status as 'queued' | 'errored';
}

/**
 * A run that could not proceed now (JobDeferred): queued again after delayMs, its claim not counted as
 * an attempt; the reason is kept as its error until it runs. False when workerId no longer holds it.
 */
export async function deferJob(db: Executor, input: JobHold & { reason: string; delayMs: number }): Promise<boolean> {
  const updated = await db
    .update(jobs)
    .set({
      status: 'queued',
      attempts: sql`greatest(${jobs.attempts} - 1, 0)`,
      runAt: sql`now() + ${milliseconds(input.delayMs)}`,
      error: input.reason.slice(0, 4000),
      lockedBy: null,
      lockedUntil: null,
    })
    .where(heldBy(input))
    .returning({ id: jobs.id });
  if (updated.length === 0) return false;
  await publishJobUpdate(db, input.id);
  return true;
}

/**
 * An attempt that stopped because it could not renew its lease in time gives the job back at once if
 * no other claim took it meanwhile: queued now for a fresh attempt (the claim stays counted). False
 * when the claim no longer holds it.
 */
export async function releaseJob(db: Executor, input: JobHold & { reason: string }): Promise<boolean> {
  const updated = await db
    .update(jobs)
    .set({ status: 'queued', runAt: sql`now()`, error: input.reason.slice(0, 4000), lockedBy: null, lockedUntil: null })
    .where(heldBy(input))
    .returning({ id: jobs.id });
  if (updated.length === 0) return false;
  await publishJobUpdate(db, input.id);
  return true;
}

/** Progress 0..1 of a running job; GET /api/jobs streams it as a job_updated event. */
export async function setJobProgress(db: Executor, input: JobHold & { progress: number }): Promise<boolean> {
  const progress = Math.min(1, Math.max(0, input.progress));
  const updated = await db.update(jobs).set({ progress }).where(heldBy(input)).returning({ id: jobs.id });
  if (updated.length === 0) return false;
  await publishJobUpdate(db, input.id);
  return true;
}

/** A running job's stage (and progress, when given); false when workerId no longer holds it. */
export async function setJobStage(db: Executor, input: JobHold & { stage: string; progress?: number | null }): Promise<boolean> {
  const progress = input.progress === undefined ? {} : { progress: input.progress === null ? null : Math.min(1, Math.max(0, input.progress)) };
  const updated = await db.update(jobs).set({ stage: input.stage, ...progress }).where(heldBy(input)).returning({ id: jobs.id });
  if (updated.length === 0) return false;
  await publishJobUpdate(db, input.id);
  return true;
}

/**
 * Appends lines to a running job's log, keeping the newest maxJobLogLines (each cut to
 * maxJobLogLineLength characters, control characters but tabs removed); logCount counts them all.
 */
export async function appendJobLog(db: Executor, input: JobHold & { lines: readonly string[] }): Promise<boolean> {
  const lines = input.lines.map(cleanLogLine).slice(-maxJobLogLines);
  if (lines.length === 0) return true;
  const appended = sql`(${jobs.log} || ${JSON.stringify(lines)}::jsonb)`;
  const updated = await db
    .update(jobs)
    .set({
      // jsonb arrays take a negative start in a slice only through a subquery: keep the last N elements.
      log: sql`(select coalesce(jsonb_agg(value order by ordinality), '[]'::jsonb) from jsonb_array_elements(${appended}) with ordinality
        where ordinality > jsonb_array_length(${appended}) - ${maxJobLogLines})`,
      logCount: sql`${jobs.logCount} + ${lines.length}`,
    })
    .where(heldBy(input))
    .returning({ id: jobs.id });
  if (updated.length === 0) return false;
  await publishJobUpdate(db, input.id);
  return true;
}

function cleanLogLine(line: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = line.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '').trimEnd();
  return clean.length > maxJobLogLineLength ? `${clean.slice(0, maxJobLogLineLength - 1)}…` : clean;
}

/** Extends the lease of a job still held by workerId (the worker's heartbeat while a handler runs). */
export async function extendJobLease(db: Executor, input: JobHold & { leaseMs: number }): Promise<boolean> {
  const updated = await db
    .update(jobs)
    .set({ lockedUntil: sql`now() + ${milliseconds(input.leaseMs)}` })
    .where(heldBy(input))
    .returning({ id: jobs.id });
  return updated.length > 0;
}

/** A job by id, if it exists. */
export async function findJob(db: Executor, id: string): Promise<Job | undefined> {
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id));
  return row;
}

/** Forgets finished jobs (succeeded or errored) that finished more than olderThanMs ago; returns how many. */
export async function deleteFinishedJobs(db: Executor, olderThanMs: number): Promise<number> {
  const deleted = await db
    .delete(jobs)
    .where(and(inArray(jobs.status, ['succeeded', 'errored']), lt(jobs.finishedAt, sql`now() - ${milliseconds(olderThanMs)}`)))
    .returning({ id: jobs.id });
  return deleted.length;
}
