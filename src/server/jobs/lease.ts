import type { Executor } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { extendJobLease, type JobHold } from './queue.ts';

/** Thrown by a guarded operation of a run whose lease is lost: the run stops, the job is left to its new holder. */
export class JobLeaseLost extends Error {
  override name = 'JobLeaseLost';
}

export type JobLease = {
  /** Aborted the moment the lease is lost (taken over, or not renewed in time); its reason is a JobLeaseLost. */
  readonly signal: AbortSignal;
  /** True while this run may still act: not aborted and its own local deadline not passed. */
  holds(): boolean;
  /** Throws JobLeaseLost (and aborts the signal) unless holds(). */
  assertHolds(): void;
  /** Marks the lease lost (a guarded write found the job no longer held). */
  lose(reason: string): void;
  /** Stops the heartbeat. */
  end(): void;
};

/**
 * The heartbeat of one claim. The database's lease ends at least leaseMs after a claim or renewal was
 * sent (its now() is later than our sending), so the run counts its own deadline on this process's
 * monotonic clock from the moment it sent the last successful one, minus a margin: a process that was
 * stopped or starved past that moment stops at once when it runs again, before the database says
 * anything, and never acts past a lease it could not renew. Renewed every third of the lease.
 */
export function holdJobLease(input: { db: Executor; log: Logger; hold: JobHold; leaseMs: number; sentAt: number }): JobLease {
  const { db, log, hold, leaseMs } = input;
  const usable = Math.floor((leaseMs * 5) / 6);
  const controller = new AbortController();
  let deadline = input.sentAt + usable;
  let renewing = false;
  let ended = false;

  const lose = (reason: string) => {
    if (controller.signal.aborted) return;
    controller.abort(new JobLeaseLost(`The job's lease was lost (${reason}): this attempt stops`));
    end();
  };
  const checkDeadline = () => {
    if (!controller.signal.aborted && performance.now() >= deadline) lose(`not renewed within ${usable} ms`);
  };
  let expiry = setTimeout(checkDeadline, usable);
  const renew = async () => {
    checkDeadline();
    if (renewing || controller.signal.aborted) return;
    renewing = true;
    const sentAt = performance.now();
    try {
      const held = await extendJobLease(db, { ...hold, leaseMs });
      if (!held) return lose('taken over by another attempt');
      checkDeadline(); // the answer came too late: the lease may have ended meanwhile
      if (controller.signal.aborted || ended) return;
      deadline = sentAt + usable;
      clearTimeout(expiry);
      expiry = setTimeout(checkDeadline, Math.max(0, deadline - performance.now()));
    } catch (error) {
      log.error('job lease renewal failed', { job: hold.id, error: String(error) });
    } finally {
      renewing = false;
    }
  };
  const heartbeat = setInterval(() => void renew(), Math.max(10, Math.floor(leaseMs / 3)));

  function end() {
    ended = true;
    clearInterval(heartbeat);
    clearTimeout(expiry);
  }

  return {
    signal: controller.signal,
    holds() {
      checkDeadline();
      return !controller.signal.aborted;
    },
    assertHolds() {
      checkDeadline();
      if (controller.signal.aborted) throw controller.signal.reason;
    },
    lose,
    end,
  };
}
