import type { Deps } from '../deps.ts';
import { newId } from '../db/ids.ts';
import { AppError } from '../errors.ts';
import { claimJob, completeJob, extendJobLease, failJob, setJobProgress, type Job } from './queue.ts';

/** What a handler may do besides returning its output. */
export type JobContext = {
  workerId: string;
  /** 0..1; ignored once the lease is lost. */
  setProgress(progress: number): Promise<void>;
};

/**
 * Any handler, whatever its payload type: the registry (handlers.ts) is typed per kind, the worker only
 * routes by kind. (Method syntax keeps parameter checking bivariant so typed handlers fit.)
 */
export type AnyJobHandler = { run(deps: Deps, job: Job<never>, context: JobContext): Promise<unknown> }['run'];
export type JobHandlerMap = Readonly<Record<string, AnyJobHandler>>;

export type JobWorkerOptions = {
  /** Idle wait between claims. */
  pollMs: number;
  /** How long a claim holds a job; renewed every third of it while the handler runs. */
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
 * The worker loop: claim a due job of a kind it has a handler for, run the handler, record the outcome;
 * sleep pollMs (or until woken) when nothing is due. Subscribes to deps.jobSignal for in-process
 * wake-ups. A job claimed more often than maxAttempts (its workers kept dying) ends errored unrun.
 */
export function startJobWorker(deps: Deps, handlers: JobHandlerMap, options: JobWorkerOptions): JobWorker {
  const kinds = Object.keys(handlers);
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

  async function run(job: Job, workerId: string): Promise<void> {
    if (job.attempts > job.maxAttempts) {
      const lastError = job.error ? ` (last error: ${job.error})` : '';
      await failJob(deps.db, { id: job.id, workerId, error: `The job was abandoned by its workers too many times${lastError}` });
      return;
    }
    const handler = handlers[job.kind]!;
    const heartbeat = setInterval(() => {
      extendJobLease(deps.db, { id: job.id, workerId, leaseMs: options.leaseMs }).catch((error) =>
        deps.log.error('job lease renewal failed', { job: job.id, error: String(error) }),
      );
    }, Math.max(10, Math.floor(options.leaseMs / 3)));
    const context: JobContext = {
      workerId,
      setProgress: async (progress) => {
        await setJobProgress(deps.db, { id: job.id, workerId, progress });
      },
    };
    try {
      const started = performance.now();
      const output = await handler(deps, job as Job<never>, context);
      await completeJob(deps.db, { id: job.id, workerId, output });
      deps.log.debug('job succeeded', { job: job.id, kind: job.kind, ms: Math.round(performance.now() - started) });
    } catch (error) {
      // AppError messages are written for users; anything else is logged in full and stored as a summary.
      const message = error instanceof AppError ? error.message : error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      const status = await failJob(deps.db, { id: job.id, workerId, error: message });
      deps.log.error('job failed', { job: job.id, kind: job.kind, attempt: job.attempts, next: status, error: message });
    } finally {
      clearInterval(heartbeat);
    }
  }

  async function loop(index: number): Promise<void> {
    const workerId = `${processId}-${index}`;
    while (!stopped) {
      let job: Job | undefined;
      try {
        job = await claimJob(deps.db, { workerId, kinds, leaseMs: options.leaseMs });
      } catch (error) {
        deps.log.error('job claim failed', { error: String(error) });
      }
      if (job) {
        try {
          await run(job, workerId);
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
