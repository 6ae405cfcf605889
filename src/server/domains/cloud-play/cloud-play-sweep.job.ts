import { definePeriodicJob } from '../../jobs/periodic-job.ts';
import { forgetEndedSessions, sweepCloudSessions } from './sweep.ts';

/**
 * Every 30 s: the cloud-play deadlines (sweep.ts) for all sessions, so they hold when no machine and
 * no player calls (every provide, init and state call checks them too); and ended sessions older
 * than a week are forgotten.
 */
export const cloudPlaySweepJob = definePeriodicJob({
  kind: 'cloud_play_sweep',
  everyMs: 30_000,
  run: async (deps) => ({
    cloudSessionsEnded: await sweepCloudSessions(deps.db, deps.config),
    cloudSessionsForgotten: await forgetEndedSessions(deps.db),
  }),
});
