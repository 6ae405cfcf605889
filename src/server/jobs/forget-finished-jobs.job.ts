import { definePeriodicJob } from './periodic-job.ts';
import { deleteFinishedJobs } from './queue.ts';

/** Finished jobs are kept a week (their outputs are what clients and operators look at), then forgotten. */
const finishedJobsKeptMs = 7 * 24 * 60 * 60_000;

/** Hourly: forgets jobs that finished over a week ago (the queue's own data). */
export const forgetFinishedJobsJob = definePeriodicJob({
  kind: 'forget_finished_jobs',
  everyMs: 60 * 60_000,
  run: async (deps) => ({ jobsForgotten: await deleteFinishedJobs(deps.db, finishedJobsKeptMs) }),
});
