import type { Deps } from '../deps.ts';
import { newId } from '../db/ids.ts';
import { AppError } from '../errors.ts';
import { JobDeferred, JobPayloadError, type JobContext, type RunnableJob } from './define-job.ts';
import { holdJobLease, JobLeaseLost } from './lease.ts';
import { appendJobLog, claimJob, completeJob, deferJob, failJob, releaseJob, setJobProgress, setJobStage, type Job, type JobHold } from './queue.ts';

export type { JobContext } from './define-job.ts';

export type JobWorkerOptions = {
  /** Idle wait between claims. */
  pollMs: number;
  /** How long a claim holds a job; renewed every third of it while the job runs (lease.ts). */
  leaseMs: number;
  /** Loops running jobs at once in this process (default 1). */
  concurrency?: number;
};

export type JobWorker = {
  /** Claim now instead of at the next poll (after an enqueue in this process). */
  wake(): void;
  /** Stops claiming and waits for the jobs in hand to finish. */
  stop(): Promise<void>;
};

/**
 * The worker loop: claim a due job of a kind in `jobs` (the composition root's job list), run it, record
 * the outcome; sleep pollMs (or until woken) when nothing is due. Subscribes to deps.jobSignal for
 * in-process wake-ups. A job claimed more often than maxAttempts (its workers kept dying) ends errored unrun.
 */
export function startJobWorker(deps: Deps, jobs: readonly RunnableJob[], options: JobWorkerOptions): JobWorker {
  const byKind = new Map<string, RunnableJob>();
  for (const job of jobs) {
    if (byKind.has(job.kind)) throw new Error(`Two jobs of the list have the kind '${job.kind}'`);
    byKind.set(job.kind, job);
  }
  const kinds = [...byKind.keys()];
  const processId = newId(8);
  let stopped = false;
  const sleepers = new Set<() => void>();
  let pendingWake = false;

  const wake = () => {
    if (sleepers.size === 0) pendingWake = true;
    for (const resolve of sleepers) resolve();
    sleepers.clear();
  };

  const idle = () =>
    new Promise<void>((resolve) => {
      if (pendingWake || stopped) {
        pendingWake = false;
        return resolve();
      }
      const timer = setTimeout(() => {
        sleepers.delete(done);
        resolve();
      }, options.pollMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      sleepers.add(done);
    });

  async function run(job: Job, workerId: string, claimSentAt: number): Promise<void> {
    const hold: JobHold = { id: job.id, workerId, attempt: job.attempts };
    if (job.attempts > job.maxAttempts) {
      const lastError = job.error ? ` (last error: ${job.error})` : '';
      await failJob(deps.db, { ...hold, error: `The job was abandoned by its workers too many times${lastError}` });
      return;
    }
    const runnable = byKind.get(job.kind)!;
    const lease = holdJobLease({ db: deps.db, log: deps.log, hold, leaseMs: options.leaseMs, sentAt: claimSentAt });
    /** A write of the run: only while the lease holds; a write the database refuses means it was taken over. */
    const guarded = async (write: () => Promise<boolean>) => {
      lease.assertHolds();
      if (!(await write())) lease.lose('taken over by another attempt');
      lease.assertHolds();
    };
    const context: JobContext = {
      jobId: job.id,
      workerId,
      attempt: job.attempts,
      signal: lease.signal,
      assertHolds: lease.assertHolds,
      setProgress: (progress) => guarded(() => setJobProgress(deps.db, { ...hold, progress })),
      setStage: (stage, progress) => guarded(() => setJobStage(deps.db, { ...hold, stage, progress })),
      appendLog: (lines) => guarded(() => appendJobLog(deps.db, { ...hold, lines })),
    };
    try {
      const started = performance.now();
      const output = await runnable.execute(deps, job as Job<never>, context);
      lease.assertHolds();
      if (!(await completeJob(deps.db, { ...hold, output }))) throw new JobLeaseLost('The job was taken over before this attempt finished');
      deps.log.debug('job succeeded', { job: job.id, kind: job.kind, ms: Math.round(performance.now() - started) });
    } catch (error) {
      if (error instanceof JobLeaseLost || lease.signal.aborted) {
        // Whatever the run threw, its lease is gone: nothing of this attempt is recorded. A job nobody took
        // over yet is given back at once instead of waiting for its lease to end.
        const reason = error instanceof JobLeaseLost ? error.message : String(lease.signal.reason);
        const released = await releaseJob(deps.db, { ...hold, reason }).catch(() => false);
        deps.log.error('job lease lost', { job: job.id, kind: job.kind, attempt: job.attempts, released, reason });
        return;
      }
      if (error instanceof JobDeferred) {
        await deferJob(deps.db, { ...hold, reason: error.message, delayMs: error.delayMs });
        deps.log.info('job deferred', { job: job.id, kind: job.kind, reason: error.message, delayMs: error.delayMs });
        return;
      }
      // AppError messages are written for users; anything else is logged in full and stored as a summary.
      const message = error instanceof AppError ? error.message : error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      const status = await failJob(deps.db, { ...hold, error: message, permanent: error instanceof JobPayloadError || runnable.retryFailures === false });
      deps.log.error('job failed', { job: job.id, kind: job.kind, attempt: job.attempts, next: status, error: message });
    } finally {
      lease.end();
    }
  }

  async function loop(index: number): Promise<void> {
    const workerId = `${processId}-${index}`;
    while (!stopped) {
      let job: Job | undefined;
      const claimSentAt = performance.now();
      try {
        job = await claimJob(deps.db, { workerId, kinds, leaseMs: options.leaseMs });
      } catch (error) {
        deps.log.error('job claim failed', { error: String(error) });
      }
      if (job) {
        try {
          await run(job, workerId, claimSentAt);
        } catch (error) {
          // Recording the outcome failed (database unreachable?): the lease ends and the job is retaken.
          deps.log.error('job bookkeeping failed', { job: job.id, error: String(error) });
        }
        continue;
      }
      await idle();
    }
  }

  const unsubscribe = deps.jobSignal.subscribe(wake);
  const loops = Array.from({ length: Math.max(1, options.concurrency ?? 1) }, (_, index) => loop(index));

  return {
    wake,
    async stop() {
      stopped = true;
      unsubscribe();
      wake();
      await Promise.all(loops);
    },
  };
}
