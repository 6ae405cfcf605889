import { useEffect, useState } from 'react';
import { z } from 'zod';
import { sleep } from '../../shared/api/retry.ts';
import { watchJobs, type WatchedJob } from '../../shared/api/jobs.ts';
import { deployOutputSchema, deployProviderSchema, deployStateOf, type DeployJob, type DeployOutput, type DeployState } from '../../shared/schemas/deploy.ts';
import { api, ApiError } from './api.ts';

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

/** A refusal the server will repeat (4xx: a forgotten job, a bad token), not worth asking again. */
export function isRefusal(error: unknown): boolean {
  return error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
}

export function isFinished(job: Pick<WatchedJob, 'status'> | undefined): boolean {
  return job !== undefined && (job.status === 'succeeded' || job.status === 'errored');
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

/** How long to wait between two POST /jobs when the event stream is unavailable, and before reconnecting. */
export const jobPollMs = 2000;

export type WatchedJobs = {
  /** Per token, in order: the newest state (whole log kept), undefined until the first answer. */
  jobs: (WatchedJob | undefined)[];
  /** The last failure to reach the server while following (cleared by the next answer). */
  error: unknown;
};

/**
 * Follows jobs by their tokens (src/shared/api watchJobs: the GET /jobs event stream, POST /jobs while it
 * is unavailable) until every one finished or the component goes away; a failure is retried after
 * jobPollMs unless the server refused (a forgotten job). Restarts when the tokens change.
 */
export function useWatchedJobs(tokens: readonly string[]): WatchedJobs {
  const key = tokens.join('\n');
  const [state, setState] = useState<WatchedJobs & { key: string }>({ key, jobs: tokens.map(() => undefined), error: undefined });

  useEffect(() => {
    const list = key === '' ? [] : key.split('\n');
    setState((current) => (current.key === key ? current : { key, jobs: list.map(() => undefined), error: undefined }));
    if (list.length === 0) return;
    const controller = new AbortController();
    const { signal } = controller;
    let jobs: (WatchedJob | undefined)[] = list.map(() => undefined);
    void (async () => {
      while (!signal.aborted) {
        try {
          await watchJobs(api, list, {
            signal,
            pollMs: jobPollMs,
            onUpdate: (index, job) => {
              if (signal.aborted) return;
              jobs = jobs.with(index, job);
              setState({ key, jobs, error: undefined });
            },
          });
          return;
        } catch (error) {
          if (signal.aborted) return;
          setState({ key, jobs, error });
          if (isRefusal(error)) return;
          await sleep(jobPollMs, signal).catch(() => {});
        }
      }
    })();
    return () => controller.abort();
  }, [key]);

  // Until the effect has run for new tokens, nothing is known of them.
  if (state.key !== key) return { jobs: tokens.map(() => undefined), error: undefined };
  return { jobs: state.jobs, error: state.error };
}
