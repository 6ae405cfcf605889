import type { JobContext } from '../../src/server/jobs/define-job.ts';

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
