import { definePeriodicJob } from '../../../jobs/periodic-job.ts';
import { forgetExpiredFlows } from './flows.ts';

/** Hourly: removes external sign-in tokens that expired unused (flows.ts). */
export const forgetExternalAuthFlowsJob = definePeriodicJob({
  kind: 'forget_external_auth_flows',
  everyMs: 60 * 60_000,
  run: async (deps) => ({ externalAuthFlowsForgotten: await forgetExpiredFlows(deps.db) }),
});
