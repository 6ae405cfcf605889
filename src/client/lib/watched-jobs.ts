import { useEffect, useState } from 'react';
import { watchJobs, type WatchedJob } from '../../shared/api/jobs.ts';
import { sleep } from '../../shared/sleep.ts';
import { api } from './api.ts';
import { toDisplayError } from './errors.ts';

/**
 * Following jobs live from a screen (deploys, the admin page's maintenance jobs): the shared watchJobs
 * (src/shared/api/jobs.ts) bound to React.
 */

/** A refusal the server will repeat (4xx: a forgotten job, a bad token), not worth asking again; REST's or tRPC's. */
export function isRefusal(error: unknown): boolean {
  const { status } = toDisplayError(error);
  return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

export function isFinished(job: Pick<WatchedJob, 'status'> | undefined): boolean {
  return job !== undefined && (job.status === 'succeeded' || job.status === 'errored');
}

/** How long to wait between two POST /jobs when the event stream is unavailable, and before reconnecting. */
const jobPollMs = 2000;

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
