import { inArray } from 'drizzle-orm';
import type { JobState, JobUpdatedEvent } from '../../shared/schemas/jobs.ts';
import { jobs } from '../db/schema/index.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { subscribeJobUpdates } from './notify.ts';
import type { Job } from './queue.ts';

/**
 * GET /api/jobs: `job_updated` server-sent events for a list of jobs (DESIGN.md "Jobs and events").
 * A stream LISTENs for job_events notifications (notify.ts) and re-reads its unfinished jobs when one
 * of them is named; it also re-reads every pollMs, so a notification lost (listener reconnecting, a
 * writer that does not notify) only delays an event. Each re-read sends what changed since the last
 * event of that job; the stream closes after every job has sent its output event.
 */

/** Mutable so tests can prove delivery by notification alone (a long poll) or see keep-alives. */
export const jobStreamTiming = { pollMs: 2_000, keepAliveMs: 15_000 };

export function jobStateOf(job: Job, index: number): JobState {
  return { index, status: job.status, progress: job.progress, stage: job.stage, log: job.log, output: job.output ?? null, error: job.error };
}

/**
 * The event that describes a job now; a job deleted meanwhile ends as errored. logSent: how many of the
 * job's log lines (its logCount) were sent already: the event carries the kept ones written since.
 */
function jobEventOf(job: Job | undefined, index: number, logSent = 0): JobUpdatedEvent {
  if (!job) return { type: 'output', job: index, status: 'errored', progress: null, stage: null, log: [], output: null, error: 'The job no longer exists' };
  const unsent = Math.max(0, job.logCount - logSent);
  const log = unsent === 0 ? [] : job.log.slice(-Math.min(unsent, job.log.length));
  if (job.status === 'succeeded' || job.status === 'errored') {
    return { type: 'output', job: index, status: job.status, progress: job.progress, stage: job.stage, log, output: job.output ?? null, error: job.error };
  }
  return { type: 'progress', job: index, status: job.status, progress: job.progress, stage: job.stage, log };
}

function serverSentEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

async function readJobs(deps: Deps, ids: string[]): Promise<Map<string, Job>> {
  if (ids.length === 0) return new Map();
  const rows = await deps.db.select().from(jobs).where(inArray(jobs.id, [...new Set(ids)]));
  return new Map(rows.map((row) => [row.id, row]));
}

type Entry = { index: number; id: string; lastSent: string | undefined; logSent: number; done: boolean };

/**
 * Opens the event stream for jobIds (in token order; repeats allowed, each index gets its events).
 * Listens first, then reads the jobs: an update between the two is seen by the read or notified after
 * it. Throws not_found (details.index) when a job does not exist; nothing is streamed then.
 */
export async function openJobEventStream(deps: Deps, jobIds: readonly string[], signal?: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  const entries: Entry[] = jobIds.map((id, index) => ({ index, id, lastSent: undefined, logSent: 0, done: false }));
  const watched = new Set(jobIds);
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let closed = false;
  let refreshing = false;
  let refreshAgain = false;
  /** A notification that came before the stream started: refresh right after the initial events. */
  let notifiedEarly = false;
  const timers: ReturnType<typeof setInterval>[] = [];

  const unsubscribe = await subscribeJobUpdates(deps.database, (jobId) => {
    if (!watched.has(jobId)) return;
    if (controller) void refresh();
    else notifiedEarly = true;
  });

  const finish = (closeStream: boolean) => {
    if (closed) return;
    closed = true;
    for (const timer of timers) clearInterval(timer);
    unsubscribe();
    if (closeStream) {
      try {
        controller?.close();
      } catch {
        /* the client is gone already */
      }
    }
  };

  const write = (text: string) => {
    if (closed || !controller) return;
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      finish(false); // the client went away
    }
  };

  /** Sends each job's change since its last event; closes once all have sent their output. */
  const emit = (rows: Map<string, Job>) => {
    for (const entry of entries) {
      if (entry.done) continue;
      const row = rows.get(entry.id);
      const event = jobEventOf(row, entry.index, entry.logSent);
      const key = JSON.stringify([event.type, event.status, event.progress, event.stage]);
      if (key === entry.lastSent && event.log.length === 0) continue;
      entry.lastSent = key;
      entry.logSent = row?.logCount ?? entry.logSent;
      if (event.type === 'output') entry.done = true;
      write(serverSentEvent('job_updated', event));
    }
    if (entries.every((entry) => entry.done)) finish(true);
  };

  /** One re-read at a time, in order; requests arriving meanwhile fold into one more. */
  async function refresh(): Promise<void> {
    if (refreshing) {
      refreshAgain = true;
      return;
    }
    refreshing = true;
    try {
      do {
        refreshAgain = false;
        if (closed) return;
        try {
          emit(await readJobs(deps, entries.filter((entry) => !entry.done).map((entry) => entry.id)));
        } catch (error) {
          deps.log.error('job stream refresh failed', { error: String(error) }); // the next poll tries again
        }
      } while (refreshAgain);
    } finally {
      refreshing = false;
    }
  }

  let initial: Map<string, Job>;
  try {
    initial = await readJobs(deps, [...watched]);
  } catch (error) {
    unsubscribe();
    throw error;
  }
  const missing = entries.find((entry) => !initial.has(entry.id));
  if (missing) {
    unsubscribe();
    throw new AppError('not_found', `Job ${missing.index} not found`, { index: missing.index });
  }

  signal?.addEventListener('abort', () => finish(false), { once: true });
  return new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
      // The first bytes go out at once, so clients and proxies see the stream open.
      write(': connected\n\n');
      emit(initial);
      if (closed) return;
      timers.push(setInterval(() => void refresh(), jobStreamTiming.pollMs));
      timers.push(setInterval(() => write(': keep-alive\n\n'), jobStreamTiming.keepAliveMs));
      if (notifiedEarly) void refresh();
    },
    cancel() {
      finish(false);
    },
  });
}
