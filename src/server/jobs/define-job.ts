import type { z } from 'zod';
import type { Executor } from '../db/client.ts';
import type { Deps } from '../deps.ts';
import { enqueueJob, type EnqueueOptions, type Job } from './queue.ts';

/**
 * How to add a job:
 * 1. In the domain that owns the work, write `<name>.job.ts`:
 *      export const resolveJob = defineJob({
 *        kind: 'resolve', // stored in jobs.kind: never rename a kind that may still be queued
 *        payload: z.object({ packageId: z.string() }),
 *        run: (deps, payload, context) => resolvePatch(deps, payload.packageId),
 *      });
 *    A job that runs every so often is `definePeriodicJob({ kind, everyMs, run })` (periodic-job.ts).
 * 2. Queue it where the work arises, inside the transaction of the change that needs it:
 *      await resolveJob.enqueue(tx, { packageId }, { projectId, dedupeKey: `package:${packageId}` });
 *    then `deps.jobSignal.notify()` after the commit, so this process's workers start it at once.
 * 3. Add it to the job list of the composition root (src/server/jobs-list.ts): workers claim only the
 *    kinds listed there, and periodic jobs are scheduled from there at start.
 * The payload is checked against the schema when queued (a bug: it throws) and when claimed (a row
 * written by an older release that no longer fits fails that job for good, with the reason).
 * A job's module imports the run's code, so that code must never import the job module back.
 *
 * A run holds its job by a lease that the worker renews (lease.ts). Once the lease is lost (the process
 * was stopped or starved past it, and another worker may already run the job as a new attempt) the run
 * must stop before it touches anything: context.signal aborts, context.assertHolds() and every context
 * write throw JobLeaseLost, and the worker records nothing for that attempt. So a run checks the
 * signal (or calls assertHolds()) before each step with an effect outside its own rows (a file
 * written or removed, a blob deleted, a program started), passes the signal to what it waits on, and
 * keeps its scratch files in a place of its own attempt (deploy-folders.ts), never of the job.
 */

/** What a run may do besides returning its output (stored as the job's jsonb output). */
export type JobContext = {
  jobId: string;
  workerId: string;
  /** This claim's attempt number, its fencing token: every write of the run is conditional on workerId and it. */
  attempt: number;
  /**
   * Aborted the moment this attempt's lease is lost (another attempt took the job over, or the heartbeat
   * could not renew it before it ends): pass it to whatever waits (streams, child processes, fetch).
   * After a stall it aborts at the event loop's next turn; assertHolds() reads the clock at once.
   */
  signal: AbortSignal;
  /** Throws JobLeaseLost once the lease is lost: call it before each step that changes something. */
  assertHolds(): void;
  /** 0..1. These three write only while the lease holds; after that they throw JobLeaseLost. */
  setProgress(progress: number): Promise<void>;
  /** What the job does now, in its kind's words (streamed with its progress); progress too when given. */
  setStage(stage: string, progress?: number | null): Promise<void>;
  /** Lines for people to read (the job's log, streamed): never a secret. */
  appendLog(lines: readonly string[]): Promise<void>;
};

/** A payload that does not fit its kind's schema: retrying cannot help, so the job fails at once. */
export class JobPayloadError extends Error {
  override name = 'JobPayloadError';
}

/**
 * Thrown by a run that cannot proceed now for a reason that is not its fault and will pass (a backup
 * holds a lock the run needs): the job is queued again after delayMs without spending an attempt, so
 * a wait of hours does not exhaust its retries. Not for failures: those throw anything else.
 */
export class JobDeferred extends Error {
  override name = 'JobDeferred';
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

/** What the worker needs of a job kind, whatever its payload (Job<never>: any typed execute fits). */
export type RunnableJob = {
  readonly kind: string;
  /** false: a failed run ends the job (a lease lost to a dead worker is still taken over). Default true. */
  readonly retryFailures?: boolean;
  /** The worker loops that run it (serve.ts); undefined: the general ones. */
  readonly lane?: JobLane;
  execute(deps: Deps, job: Job<never>, context: JobContext): Promise<unknown>;
};

/**
 * 'deploys': jobs that run for minutes (a push to a storefront) get loops of their own (DEPLOY_WORKERS),
 * so they never hold up the short ones (resolves, downloads, sweeps) of the general loops (JOB_WORKERS).
 * 'maintenance': an administrator's job over the whole instance that may run for hours (re-encoding
 * every content image) gets one loop of its own, for the same reason.
 */
type JobLane = 'deploys' | 'maintenance';

export type JobHandle<Kind extends string, Payload, Output> = {
  readonly kind: Kind;
  readonly retryFailures: boolean;
  readonly lane?: JobLane;
  readonly payload: z.ZodType<Payload>;
  /** Queues a job (inside the caller's transaction when given one); undefined when deduplicated. */
  enqueue(executor: Executor, payload: Payload, options?: EnqueueOptions): Promise<Job<Payload> | undefined>;
  /** The worker's entry: checks the stored payload, then runs. */
  execute(deps: Deps, job: Job, context: JobContext): Promise<Output>;
};

export type JobDefinition<Kind extends string, Schema extends z.ZodType, Output> = {
  kind: Kind;
  payload: Schema;
  /**
   * Default true: a run that throws is retried with a backoff until maxAttempts. false for work that
   * must not be repeated on its own after a failure (a deploy would push another build): the failure
   * is final, while a run whose worker died is still taken over when its lease ends.
   */
  retryFailures?: boolean;
  lane?: JobLane;
  run(deps: Deps, payload: z.output<Schema>, context: JobContext): Promise<Output>;
};

function checkPayload<Schema extends z.ZodType>(kind: string, schema: Schema, payload: unknown, when: string): z.output<Schema> {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');
  throw new JobPayloadError(`The payload ${when} for job kind '${kind}' does not fit its schema (${problems})`);
}

export function defineJob<Kind extends string, Schema extends z.ZodType, Output>(
  definition: JobDefinition<Kind, Schema, Output>,
): JobHandle<Kind, z.input<Schema>, Output> {
  const { kind, payload: schema } = definition;
  return {
    kind,
    retryFailures: definition.retryFailures ?? true,
    lane: definition.lane,
    payload: schema as z.ZodType<z.input<Schema>>,
    async enqueue(executor, payload, options = {}) {
      const checked = checkPayload(kind, schema, payload, 'given');
      return (await enqueueJob(executor, { ...options, kind, payload: checked })) as Job<z.input<Schema>> | undefined;
    },
    async execute(deps, job, context) {
      return definition.run(deps, checkPayload(kind, schema, job.payload, 'stored'), context);
    },
  };
}
