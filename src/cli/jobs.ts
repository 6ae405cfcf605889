import type { JobState, JobUpdatedEvent } from '../shared/schemas/jobs.ts';
import { sleep } from '../shared/upload/index.ts';
import type { Api } from './api.ts';
import { CliError, exitCodes } from './errors.ts';

export type FinishedJob = { status: 'succeeded' | 'errored'; output: unknown; error: string | null };

/** Parses server-sent events from a byte stream: yields each event's name and data. */
async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
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

async function waitWithEvents(api: Api, token: string, onProgress: (progress: number | null) => void): Promise<FinishedJob | undefined> {
  const { io } = api.options;
  let response: Response;
  try {
    response = await io.fetch(api.url(`/jobs?token=${encodeURIComponent(token)}`), { headers: { accept: 'text/event-stream' }, signal: io.signal });
  } catch {
    return undefined;
  }
  if (!response.ok || !response.body || !response.headers.get('content-type')?.includes('text/event-stream')) return undefined;
  for await (const { event, data } of readEvents(response.body)) {
    if (event !== 'job_updated') continue;
    const update = JSON.parse(data) as JobUpdatedEvent;
    if (update.type === 'progress') onProgress(update.progress);
    else return { status: update.status, output: update.output, error: update.error };
  }
  return undefined;
}

/**
 * Waits for a job by its access token: the GET /api/jobs event stream, or when that is unavailable
 * or drops, POST /api/jobs every second.
 */
export async function waitForJob(api: Api, token: string, onProgress: (progress: number | null) => void = () => {}): Promise<FinishedJob> {
  const viaEvents = await waitWithEvents(api, token, onProgress);
  if (viaEvents) return viaEvents;
  for (;;) {
    const [state] = await api.request<JobState[]>('POST', '/jobs', { tokens: [token] });
    if (!state) throw new CliError(exitCodes.server, 'the server did not report the job');
    if (state.status === 'succeeded' || state.status === 'errored') return { status: state.status, output: state.output, error: state.error };
    onProgress(state.progress);
    await sleep(1000, api.options.io.signal);
  }
}
