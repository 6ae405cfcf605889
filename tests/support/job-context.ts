import type { JobContext } from '../../src/server/jobs/define-job.ts';
import { JobLeaseLost } from '../../src/server/jobs/lease.ts';

/** The context of a job run called directly by a test (no worker, no lease: it always holds). */
export function directJobContext(jobId = 'test'): JobContext {
  return {
    jobId,
    workerId: 'test',
    attempt: 1,
    signal: new AbortController().signal,
    assertHolds: () => {},
    setProgress: async () => {},
    setStage: async () => {},
    appendLog: async () => {},
  };
}

/** The context of a run whose lease is already lost, as the worker makes it: the signal aborted, every check and write throwing. */
export function lostJobContext(jobId = 'test'): JobContext {
  const lost = new JobLeaseLost("The job's lease was lost (taken over by another attempt): this attempt stops");
  const fail = async () => {
    throw lost;
  };
  return {
    jobId,
    workerId: 'test',
    attempt: 1,
    signal: AbortSignal.abort(lost),
    assertHolds: () => {
      throw lost;
    },
    setProgress: fail,
    setStage: fail,
    appendLog: fail,
  };
}
