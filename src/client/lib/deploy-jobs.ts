import { z } from 'zod';
import type { WatchedJob } from '../../shared/api/jobs.ts';
import { deployOutputSchema, deployProviderSchema, deployStateOf, type DeployJob, type DeployOutput, type DeployState } from '../../shared/schemas/deploy.ts';

// Following jobs is not the deploys' own: the hook and its helpers live in watched-jobs.ts.
export { isFinished, isRefusal, useWatchedJobs } from './watched-jobs.ts';

/**
 * The deploy jobs this tab started for a version, kept in sessionStorage under the version's id so the
 * deploy to site dialog reopens on its progress after a reload (spec §2 dialog 'deploy to site'). Only
 * what the dialog shows is kept: the tokens that follow the jobs (POST /jobs, GET /jobs) and what each
 * job deploys where; never a key. Closing the dialog forgets the entry.
 */
const storedDeploySchema = z.object({
  projectId: z.string(),
  versionId: z.string(),
  site: z.string(),
  provider: deployProviderSchema,
  jobs: z
    .array(z.object({ token: z.string().min(1), job: z.string(), package: z.string(), packageTitle: z.string(), channel: z.string() }))
    .min(1)
    .max(100),
});
export type StoredDeploy = z.infer<typeof storedDeploySchema>;

const storageKey = (versionId: string) => `deploy_jobs:${versionId}`;

/** What the dialog keeps of a started deploy (POST .../deploy's jobs, in the request's order). */
export function storedDeployOf(projectId: string, versionId: string, jobs: readonly DeployJob[]): StoredDeploy {
  const first = jobs[0];
  return {
    projectId,
    versionId,
    site: first?.site ?? '',
    provider: first?.provider ?? 'itch',
    jobs: jobs.map((job) => ({ token: job.token, job: job.job, package: job.package, packageTitle: job.packageTitle, channel: job.channel })),
  };
}

export function saveStoredDeploy(deploy: StoredDeploy): void {
  try {
    sessionStorage.setItem(storageKey(deploy.versionId), JSON.stringify(deploy));
  } catch {
    // storage blocked or full: the dialog still follows the jobs until the page goes away
  }
}

/** The deploy this tab started for the version and has not closed yet; undefined when none (or unreadable). */
export function readStoredDeploy(versionId: string): StoredDeploy | undefined {
  let text: string | null = null;
  try {
    text = sessionStorage.getItem(storageKey(versionId));
  } catch {
    return undefined;
  }
  if (!text) return undefined;
  try {
    const parsed = storedDeploySchema.safeParse(JSON.parse(text));
    if (parsed.success && parsed.data.versionId === versionId) return parsed.data;
  } catch {
    // not JSON: dropped below
  }
  forgetStoredDeploy(versionId);
  return undefined;
}

export function forgetStoredDeploy(versionId: string): void {
  try {
    sessionStorage.removeItem(storageKey(versionId));
  } catch {
    // storage blocked
  }
}

/** The spec §4 state of a watched job, or `fallback` (the list's state) before the first update. */
export function watchedState(job: WatchedJob | undefined, fallback: DeployState = 'queued'): DeployState {
  return job ? deployStateOf(job.status, job.stage) : fallback;
}

/** The deploy output of a succeeded job (the itch.io build id), undefined otherwise or when unreadable. */
export function deployOutputOf(job: WatchedJob | undefined): DeployOutput | undefined {
  if (job?.status !== 'succeeded') return undefined;
  const parsed = deployOutputSchema.safeParse(job.output);
  return parsed.success ? parsed.data : undefined;
}
