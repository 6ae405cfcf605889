import type { JobState, JobUpdatedEvent } from '../schemas/jobs.ts';
import type { ApiClient, CallOptions } from './client.ts';
import { ApiError } from './errors.ts';
import { sleep } from '../sleep.ts';
import { routes } from './routes.ts';

export type FinishedJob = { status: 'succeeded' | 'errored'; output: unknown; error: string | null };

/** Parses server-sent events from a byte stream: yields each event's name and data. */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const piece of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(piece, { stream: true }).replace(/\r\n?/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) yield { event, data: data.join('\n') };
    }
  }
}

/** POST /jobs for one token: its state (not_found when the server does not know it). */
async function getJobState(api: ApiClient, token: string, options: CallOptions = {}): Promise<JobState> {
  const [state] = await api.call(routes.jobs.state, { body: { tokens: [token] }, ...options });
  if (!state) throw new ApiError('not_found', 'the server did not report the job', { status: 404, request: 'POST /jobs', retryable: false });
  return state;
}

/** The GET /jobs event stream until the job's output; undefined when the stream is unavailable or drops. */
async function waitWithEvents(api: ApiClient, token: string, signal: AbortSignal | undefined, onProgress: (progress: number | null) => void): Promise<FinishedJob | undefined> {
  let response: Response;
  try {
    response = await api.call(routes.jobs.events, { query: { token }, headers: { accept: 'text/event-stream' }, signal, retry: false });
  } catch {
    if (signal?.aborted) signal.throwIfAborted();
    return undefined;
  }
  if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream')) return undefined;
  try {
    for await (const { event, data } of readEvents(response.body)) {
      if (event !== 'job_updated') continue;
      const update = JSON.parse(data) as JobUpdatedEvent;
      if (update.type === 'progress') onProgress(update.progress);
      else return { status: update.status, output: update.output, error: update.error };
    }
  } catch {
    if (signal?.aborted) signal.throwIfAborted();
  }
  return undefined;
}

export type WaitForJobOptions = {
  signal?: AbortSignal;
  /** Follow the GET /jobs event stream first (falling back to polling when it is unavailable or drops). */
  events?: boolean;
  /** Pause between two POST /jobs while polling. */
  pollMs: number;
  onProgress?: (progress: number | null) => void;
  /** Options of each POST /jobs (its retry hooks). */
  call?: CallOptions;
};

/** Waits for a job by its access token (spec §7 GET /jobs, POST /jobs) until it succeeded or errored. */
export async function waitForJob(api: ApiClient, token: string, options: WaitForJobOptions): Promise<FinishedJob> {
  const onProgress = options.onProgress ?? (() => {});
  if (options.events) {
    const viaEvents = await waitWithEvents(api, token, options.signal, onProgress);
    if (viaEvents) return viaEvents;
  }
  for (;;) {
    const state = await getJobState(api, token, { signal: options.signal, ...options.call });
    if (state.status === 'succeeded' || state.status === 'errored') return { status: state.status, output: state.output, error: state.error };
    onProgress(state.progress);
    await sleep(options.pollMs, options.signal);
  }
}

/** What a watcher knows of one job: its state with the whole kept log (not only the newest lines). */
export type WatchedJob = Omit<JobState, 'index'>;

export type WatchJobsOptions = {
  signal: AbortSignal;
  /** Called with the job's index (its token's position) and its state after every change. */
  onUpdate: (index: number, job: WatchedJob) => void;
  /** Pause between two POST /jobs while the event stream is unavailable, and before reconnecting. */
  pollMs: number;
};

/**
 * Follows several jobs by their tokens until every one finished (or signal aborts): the GET /jobs event
 * stream, reconnected when it drops, with one POST /jobs read before each reconnect so nothing is
 * missed meanwhile. Each (re)connection's first event of a job carries its whole kept log, later ones
 * the new lines: the watcher keeps the whole log either way. Resolves with the final states.
 */
export async function watchJobs(api: ApiClient, tokens: readonly string[], options: WatchJobsOptions): Promise<WatchedJob[]> {
  const jobs: (WatchedJob | undefined)[] = tokens.map(() => undefined);
  const finished = () => jobs.every((job) => job !== undefined && (job.status === 'succeeded' || job.status === 'errored'));
  const set = (index: number, job: WatchedJob) => {
    jobs[index] = job;
    options.onUpdate(index, job);
  };
  const readStates = async () => {
    const states = await api.call(routes.jobs.state, { body: { tokens: [...tokens] }, signal: options.signal });
    for (const { index, ...state } of states) set(index, state);
  };
  await readStates();
  while (!finished()) {
    const pending = tokens.map((token, index) => ({ token, index })).filter(({ index }) => {
      const status = jobs[index]?.status;
      return status !== 'succeeded' && status !== 'errored';
    });
    try {
      const response = await api.call(routes.jobs.events, {
        query: { token: pending.map((item) => item.token) },
        headers: { accept: 'text/event-stream' },
        signal: options.signal,
        retry: false,
      });
      if (response.body && response.headers.get('content-type')?.includes('text/event-stream')) {
        const seen = new Set<number>();
        for await (const { event, data } of readEvents(response.body)) {
          if (event !== 'job_updated') continue;
          const update = JSON.parse(data) as JobUpdatedEvent;
          const index = pending[update.job]?.index;
          if (index === undefined) continue;
          const before = jobs[index];
          const log = seen.has(update.job) ? [...(before?.log ?? []), ...update.log] : update.log;
          seen.add(update.job);
          set(index, {
            status: update.status,
            progress: update.progress,
            stage: update.stage,
            log,
            output: update.type === 'output' ? update.output : null,
            error: update.type === 'output' ? update.error : (before?.error ?? null),
          });
        }
      }
    } catch {
      options.signal.throwIfAborted();
    }
    if (finished()) break;
    await sleep(options.pollMs, options.signal);
    // The server unreachable for a moment: the next round tries again.
    await readStates().catch(() => options.signal.throwIfAborted());
  }
  return jobs as WatchedJob[];
}
