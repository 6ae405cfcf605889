import { z } from 'zod';
import { defineJob } from '../../jobs/define-job.ts';
import { runDeploy } from './deploy-run.ts';

/**
 * Deploys one package of a version to a deploy site's channel (deploy-run.ts); output DeployOutput.
 * A failed push is final (a retry would push another build): the user deploys again. A server killed
 * mid-deploy is different: when its lease ends another worker takes the job over and runs it afresh.
 */
export const deployJob = defineJob({
  kind: 'deploy',
  retryFailures: false,
  lane: 'deploys',
  payload: z.object({
    siteId: z.string(),
    packageId: z.string(),
    versionId: z.string(),
    versionTitle: z.string(),
    channel: z.string(),
    /** What the job describes even after the site, package or user are gone. */
    site: z.string(),
    provider: z.enum(['steam', 'itch']),
    packageTitle: z.string(),
    startedBy: z.string().nullable(),
  }),
  run: (deps, payload, context) => runDeploy(deps, payload, context),
});
