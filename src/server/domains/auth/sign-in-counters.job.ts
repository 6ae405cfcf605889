import { definePeriodicJob } from '../../jobs/periodic-job.ts';
import { forgetExpiredSignInCounters } from './sign-in-limits.ts';

/** Hourly: forgets sign-in counters whose window ended (sign-in-limits.ts). */
export const forgetSignInCountersJob = definePeriodicJob({
  kind: 'forget_sign_in_counters',
  everyMs: 60 * 60_000,
  run: async (deps) => ({ signInCountersForgotten: await forgetExpiredSignInCounters(deps.db) }),
});
