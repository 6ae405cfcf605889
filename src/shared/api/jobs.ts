import type { JobState, JobUpdatedEvent } from '../schemas/jobs.ts';
import type { ApiClient, CallOptions } from './client.ts';
import { ApiError } from './errors.ts';
import { sleep } from './retry.ts';
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
export async function getJobState(api: ApiClient, token: string, options: CallOptions = {}): Promise<JobState> {
  const [state] = await api.call(routes.jobs.states, { body: { tokens: [token] }, ...options });
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
