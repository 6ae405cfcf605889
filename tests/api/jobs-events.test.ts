import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import type { JobUpdatedEvent } from '../../src/shared/schemas/jobs.ts';
import { openDatabase } from '../../src/server/db/client.ts';
import { jobs } from '../../src/server/db/schema/index.ts';
import type { Deps } from '../../src/server/deps.ts';
import { createKeyring } from '../../src/server/crypto/index.ts';
import { issueJobToken } from '../../src/server/domains/job-status/job-tokens.ts';
import { jobStreamTiming } from '../../src/server/jobs/events.ts';
import { jobUpdateSubscriberCount } from '../../src/server/jobs/notify.ts';
import { appendJobLog, claimJob, completeJob, enqueueJob, failJob, findJob, setJobStage } from '../../src/server/jobs/queue.ts';
import { createJobSignal } from '../../src/server/jobs/signal.ts';
import { startJobWorker, type JobContext, type JobWorker } from '../../src/server/jobs/worker.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * JOB_WORKERS=0: only the workers a test starts run jobs, with the handlers it gives them. A short idle
 * timeout (the server's own is 120 s) so that a stream outliving it is quick to show.
 */
const idleTimeoutSeconds = 2;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ JOB_WORKERS: '0' }, { idleTimeoutSeconds });
});
afterAll(() => server.stop());

const defaultTiming = { ...jobStreamTiming };
afterEach(() => Object.assign(jobStreamTiming, defaultTiming));

let kindCounter = 0;
const freshKind = () => `test_events_${++kindCounter}_${Math.random().toString(36).slice(2, 6)}`;

async function newJob(kind: string, payload: unknown = {}, maxAttempts = 3) {
  const job = await enqueueJob(server.deps.db, { kind, payload, maxAttempts });
  return { id: job!.id, token: issueJobToken(server.deps, job!.id) };
}

/** Runs a job to its end by hand (no worker). */
async function finishJob(kind: string, id: string, outcome: { output: unknown } | { error: string }) {
  const claimed = await claimJob(server.deps.db, { workerId: 'hand', kinds: [kind], leaseMs: 60_000 });
  expect(claimed?.id).toBe(id);
  if ('output' in outcome) expect(await completeJob(server.deps.db, { id, workerId: 'hand', output: outcome.output })).toBe(true);
  else expect(await failJob(server.deps.db, { id, workerId: 'hand', error: outcome.error })).toBe('errored');
}

type Message = { event?: string; data?: string; comment?: string };

/** Reads server-sent events from a response; next() is a message, or 'end' once the server closed the stream. */
function sseReader(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const queue: Message[] = [];
  let ended = false;
  async function next(timeoutMs = 10_000): Promise<Message | 'end'> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (queue.length > 0) return queue.shift()!;
      if (ended) return 'end';
      const chunk = await Promise.race([reader.read(), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => 'timeout' as const)]);
      if (chunk === 'timeout') throw new Error(`no server-sent event within ${timeoutMs} ms`);
      if (chunk.done) {
        ended = true;
        continue;
      }
      buffer += decoder.decode(chunk.value, { stream: true });
      let split: number;
      while ((split = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, split);
        buffer = buffer.slice(split + 2);
        const message: Message = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) message.comment = line.slice(1).trim();
          else if (line.startsWith('event: ')) message.event = line.slice(7);
          else if (line.startsWith('data: ')) message.data = (message.data === undefined ? '' : `${message.data}\n`) + line.slice(6);
        }
        queue.push(message);
      }
    }
  }
  /** The next job_updated event (comments skipped), or 'end'. */
  async function nextEvent(timeoutMs = 10_000): Promise<JobUpdatedEvent | 'end'> {
    for (;;) {
      const message = await next(timeoutMs);
      if (message === 'end') return 'end';
      if (message.comment !== undefined) continue;
      expect(message.event).toBe('job_updated');
      return JSON.parse(message.data!) as JobUpdatedEvent;
    }
  }
  return { next, nextEvent, cancel: () => reader.cancel().catch(() => {}) };
}

async function openStream(tokens: string[]) {
  const query = tokens.map((token) => `token=${encodeURIComponent(token)}`).join('&');
  const response = await server.fetch(`/api/jobs?${query}`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  return sseReader(response);
}

/**
 * A kind whose handler reports the given progress steps one at a time, each time waiting until the test
 * releases it (after seeing the event), so every step must reach the stream, in order.
 */
function steppedKind(steps: number[], outcome: (payload: { n: number }) => unknown) {
  const kind = freshKind();
  const gates = new Map<string, () => void>();
  const release = (jobId: string, progress: number) => gates.get(`${jobId}:${progress}`)?.();
  const handler = async (_deps: Deps, job: { id: string; payload: { n: number } }, context: JobContext) => {
    for (const step of steps) {
      const passed = new Promise<void>((resolve) => gates.set(`${job.id}:${step}`, resolve));
      await context.setProgress(step);
      await passed;
    }
    return outcome(job.payload);
  };
  return { kind, handler, release };
}

describe('POST /jobs and jobs.state', () => {
  test('answer the state of each token’s job in token order; tokens are checked', async () => {
    const kind = freshKind();
    const done = await newJob(kind, { n: 1 });
    await finishJob(kind, done.id, { output: { result: 42 } });
    const queued = await newJob(kind, { n: 2 });

    const response = await server.fetch('/api/jobs', { method: 'POST', json: { tokens: [queued.token, done.token, queued.token] } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      { index: 0, status: 'queued', progress: null, stage: null, log: [], output: null, error: null },
      { index: 1, status: 'succeeded', progress: null, stage: null, log: [], output: { result: 42 }, error: null },
      { index: 2, status: 'queued', progress: null, stage: null, log: [], output: null, error: null },
    ]);
    expect(await server.trpc().jobs.state.query({ tokens: [done.token] })).toEqual([
      { index: 0, status: 'succeeded', progress: null, stage: null, log: [], output: { result: 42 }, error: null },
    ]);

    // A tampered token, a token of another instance's secret, garbage: not_found naming the first bad index.
    const tampered = done.token.slice(0, -2) + (done.token.endsWith('AA') ? 'BB' : 'AA');
    const otherSecret = issueJobToken({ keys: createKeyring({ secretKey: 'another-secret-key-0123456789-abcdefghij' }) }, done.id);
    for (const bad of [tampered, otherSecret, 'garbage', `cj_${done.id}.`]) {
      const rejected = await server.fetch('/api/jobs', { method: 'POST', json: { tokens: [done.token, bad] } });
      expect(rejected.status).toBe(404);
      expect(await rejected.json()).toMatchObject({ code: 'not_found', details: { index: 1 } });
    }
    // A valid token of a job that is gone (forgotten after a week) is not_found too.
    await server.deps.db.delete(jobs).where(eq(jobs.id, done.id));
    const forgotten = await server.fetch('/api/jobs', { method: 'POST', json: { tokens: [queued.token, done.token] } });
    expect(forgotten.status).toBe(404);
    expect(await forgotten.json()).toMatchObject({ code: 'not_found', details: { index: 1 } });
    await expect(server.trpc().jobs.state.query({ tokens: [done.token] })).rejects.toMatchObject({ data: { code: 'not_found' } });

    for (const body of [{ tokens: [] }, {}, { tokens: 'x' }]) {
      const invalid = await server.fetch('/api/jobs', { method: 'POST', json: body });
      expect(invalid.status).toBe(400);
      expect(await invalid.json()).toMatchObject({ code: 'bad_param' });
    }
  });
});

describe('GET /jobs event stream', () => {
  let worker: JobWorker | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });

  test('streams progress in order, then each output, and closes after the last job finished', async () => {
    // Notifications alone must carry the events: the fallback poll is out of reach of this test.
    jobStreamTiming.pollMs = 60_000;
    const { kind, handler, release } = steppedKind([0.25, 0.5, 0.75], (payload) => ({ doubled: payload.n * 2 }));
    const first = await newJob(kind, { n: 1 });
    const second = await newJob(kind, { n: 5 });
    const stream = await openStream([first.token, second.token]);

    // On connect: the current state of each, before any worker runs them.
    expect(await stream.nextEvent()).toEqual({ type: 'progress', job: 0, status: 'queued', progress: null, stage: null, log: [] });
    expect(await stream.nextEvent()).toEqual({ type: 'progress', job: 1, status: 'queued', progress: null, stage: null, log: [] });

    worker = startJobWorker(server.deps, [{ kind, execute: handler }], { pollMs: 50, leaseMs: 10_000, concurrency: 2 });
    const ids = [first.id, second.id];
    const seen: JobUpdatedEvent[][] = [[], []];
    let outputs = 0;
    for (;;) {
      const event = await stream.nextEvent();
      if (event === 'end') break;
      const already = seen[event.job]!;
      // Nothing of a job follows its output event.
      expect(already.some((earlier) => earlier.type === 'output')).toBe(false);
      already.push(event);
      if (event.type === 'output') outputs++;
      else if (event.progress !== null) release(ids[event.job]!, event.progress);
    }
    expect(outputs).toBe(2);
    for (const [index, events] of seen.entries()) {
      const reported = events.filter((event) => event.type === 'progress' && event.progress !== null).map((event) => event.progress);
      expect(reported).toEqual([0.25, 0.5, 0.75]);
      expect(events.filter((event) => event.type === 'progress').every((event) => event.status === 'running')).toBe(true);
      expect(events.at(-1)).toEqual({
        type: 'output',
        job: index,
        status: 'succeeded',
        progress: 0.75,
        stage: null,
        log: [],
        output: { doubled: index === 0 ? 2 : 10 },
        error: null,
      });
    }
  });

  test('a failed job is retried, then ends with an errored output event', async () => {
    jobStreamTiming.pollMs = 60_000;
    const kind = freshKind();
    let attempts = 0;
    const job = await newJob(kind, {}, 2);
    const stream = await openStream([job.token]);
    expect(await stream.nextEvent()).toMatchObject({ type: 'progress', status: 'queued' });
    worker = startJobWorker(
      server.deps,
      [
        {
          kind,
          execute: async () => {
            attempts++;
            throw new Error(`boom ${attempts}`);
          },
        },
      ],
      { pollMs: 20, leaseMs: 10_000 },
    );
    // The first failure is retried after a backoff of seconds: hurry it along.
    for (let row = await findJob(server.deps.db, job.id); !(row?.status === 'queued' && row.attempts === 1); row = await findJob(server.deps.db, job.id)) {
      await Bun.sleep(10);
    }
    await server.deps.db.update(jobs).set({ runAt: new Date(0) }).where(eq(jobs.id, job.id));
    worker.wake();
    const events: JobUpdatedEvent[] = [];
    for (let event = await stream.nextEvent(); event !== 'end'; event = await stream.nextEvent()) events.push(event);
    expect(events.slice(0, -1).every((event) => event.type === 'progress')).toBe(true);
    expect(events.at(-1)).toEqual({ type: 'output', job: 0, status: 'errored', progress: null, stage: null, log: [], output: null, error: 'Error: boom 2' });
    expect(attempts).toBe(2);
  });

  test('jobs finished before connecting deliver their outputs at once and the stream closes', async () => {
    const kind = freshKind();
    const succeeded = await newJob(kind);
    await finishJob(kind, succeeded.id, { output: { ok: true } });
    const errored = await newJob(kind, {}, 1);
    await finishJob(kind, errored.id, { error: 'it broke' });

    const started = performance.now();
    const stream = await openStream([errored.token, succeeded.token, errored.token]);
    expect(await stream.nextEvent()).toEqual({ type: 'output', job: 0, status: 'errored', progress: null, stage: null, log: [], output: null, error: 'it broke' });
    expect(await stream.nextEvent()).toEqual({ type: 'output', job: 1, status: 'succeeded', progress: null, stage: null, log: [], output: { ok: true }, error: null });
    expect(await stream.nextEvent()).toMatchObject({ type: 'output', job: 2, status: 'errored' });
    expect(await stream.nextEvent()).toBe('end');
    expect(performance.now() - started).toBeLessThan(jobStreamTiming.pollMs);
  });

  test('unknown tokens and missing jobs are answered 404 before any streaming; no token is 400', async () => {
    const kind = freshKind();
    const job = await newJob(kind);
    const unknown = await server.fetch(`/api/jobs?token=${job.token}&token=nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/json');
    expect(await unknown.json()).toMatchObject({ code: 'not_found', details: { index: 1 } });

    const gone = await newJob(kind);
    await server.deps.db.delete(jobs).where(eq(jobs.id, gone.id));
    const missing = await server.fetch(`/api/jobs?token=${gone.token}&token=${job.token}`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'not_found', details: { index: 0 } });

    const none = await server.fetch('/api/jobs');
    expect(none.status).toBe(400);
    expect(await none.json()).toMatchObject({ code: 'bad_param' });
  });

  test('a change nobody notified arrives by the fallback poll; keep-alive comments flow meanwhile', async () => {
    jobStreamTiming.pollMs = 150;
    jobStreamTiming.keepAliveMs = 40;
    const kind = freshKind();
    const job = await newJob(kind);
    const stream = await openStream([job.token]);
    expect(await stream.nextEvent()).toMatchObject({ type: 'progress', status: 'queued' });
    let comments = 0;
    for (;;) {
      const message = await stream.next(2_000);
      expect(message).not.toBe('end');
      if (message !== 'end' && message.comment === 'keep-alive') comments++;
      if (comments >= 2) break;
    }
    // Written without NOTIFY (as a process of an older version might): only polling can see it.
    await server.deps.db
      .update(jobs)
      .set({ status: 'succeeded', output: { quiet: true }, finishedAt: new Date() })
      .where(eq(jobs.id, job.id));
    expect(await stream.nextEvent(5_000)).toMatchObject({ type: 'output', status: 'succeeded', output: { quiet: true } });
    expect(await stream.nextEvent(5_000)).toBe('end');
  });

  test('stays open past the server’s idle timeout while a job waits', async () => {
    // Bun closes a connection quiet for idleTimeout (checked every few seconds) unless the route lifts it.
    jobStreamTiming.keepAliveMs = 60_000;
    jobStreamTiming.pollMs = 60_000;
    const kind = freshKind();
    const job = await newJob(kind);
    const stream = await openStream([job.token]);
    expect(await stream.nextEvent()).toMatchObject({ type: 'progress', status: 'queued' });
    await Bun.sleep(idleTimeoutSeconds * 1000 + 5_000);
    await finishJob(kind, job.id, { output: { late: true } });
    let event = await stream.nextEvent(5_000);
    if (event !== 'end' && event.type === 'progress') event = await stream.nextEvent(5_000); // the claim, when read in time
    expect(event).toMatchObject({ type: 'output', output: { late: true } });
    expect(await stream.nextEvent(5_000)).toBe('end');
  }, 30_000);

  test('a client that goes away leaves no subscription behind; finished streams neither', async () => {
    const kind = freshKind();
    const job = await newJob(kind);
    const before = jobUpdateSubscriberCount(server.deps.database);
    const stream = await openStream([job.token, job.token]);
    expect(await stream.nextEvent()).toMatchObject({ job: 0, type: 'progress' });
    expect(await stream.nextEvent()).toMatchObject({ job: 1, type: 'progress' });
    expect(jobUpdateSubscriberCount(server.deps.database)).toBe(before + 1);
    await stream.cancel();
    for (let waited = 0; jobUpdateSubscriberCount(server.deps.database) > before; waited += 10) {
      expect(waited).toBeLessThan(5_000);
      await Bun.sleep(10);
    }
    // A stream that ends by itself unsubscribes too.
    const second = await openStream([job.token]);
    expect(await second.nextEvent()).toMatchObject({ type: 'progress' });
    await finishJob(kind, job.id, { output: null });
    let event = await second.nextEvent();
    while (event !== 'end' && event.type === 'progress') event = await second.nextEvent();
    expect(event).toMatchObject({ type: 'output', status: 'succeeded', output: null });
    expect(await second.nextEvent()).toBe('end');
    expect(jobUpdateSubscriberCount(server.deps.database)).toBe(before);
  });

  test('a worker on another database connection reaches the stream by NOTIFY', async () => {
    jobStreamTiming.pollMs = 60_000;
    // On PostgreSQL a second connection pool stands for another process; PGlite has one connection only.
    const other = server.deps.database.kind === 'postgres' ? await openDatabase({ url: server.deps.config.databaseUrl }) : server.deps.database;
    const otherDeps: Deps = { ...server.deps, db: other.db, database: other, jobSignal: createJobSignal() };
    const { kind, handler, release } = steppedKind([0.5], () => ({ from: 'elsewhere' }));
    const job = await newJob(kind);
    const stream = await openStream([job.token]);
    expect(await stream.nextEvent()).toMatchObject({ type: 'progress', status: 'queued' });
    const remote = startJobWorker(otherDeps, [{ kind, execute: handler }], { pollMs: 20, leaseMs: 10_000 });
    try {
      let event = await stream.nextEvent();
      while (event !== 'end' && event.type === 'progress' && event.progress === null) event = await stream.nextEvent();
      expect(event).toEqual({ type: 'progress', job: 0, status: 'running', progress: 0.5, stage: null, log: [] });
      release(job.id, 0.5);
      expect(await stream.nextEvent()).toMatchObject({ type: 'output', status: 'succeeded', output: { from: 'elsewhere' } });
      expect(await stream.nextEvent()).toBe('end');
    } finally {
      await remote.stop();
      if (other !== server.deps.database) await other.close();
    }
  });
});

describe('stages and logs', () => {
  test("a job's stage and log lines reach the stream as they are written, each line once; a new stream starts from the kept lines", async () => {
    jobStreamTiming.pollMs = 60_000;
    const kind = freshKind();
    const job = await newJob(kind);
    const claimed = await claimJob(server.deps.db, { workerId: 'hand', kinds: [kind], leaseMs: 60_000 });
    expect(claimed?.id).toBe(job.id);
    const stream = await openStream([job.token]);
    expect(await stream.nextEvent()).toEqual({ type: 'progress', job: 0, status: 'running', progress: null, stage: null, log: [] });

    expect(await setJobStage(server.deps.db, { id: job.id, workerId: 'hand', stage: 'downloading', progress: 0.5 })).toBe(true);
    expect(await stream.nextEvent()).toEqual({ type: 'progress', job: 0, status: 'running', progress: 0.5, stage: 'downloading', log: [] });
    expect(await appendJobLog(server.deps.db, { id: job.id, workerId: 'hand', lines: ['one', 'tw\u0000o\u001b[1m', 'x'.repeat(900)] })).toBe(true);
    const logged = await stream.nextEvent();
    expect(logged).toMatchObject({ stage: 'downloading', log: ['one', 'two[1m', `${'x'.repeat(499)}…`] });
    // More lines than the job keeps: the stream sends the kept (newest) ones, never a line twice.
    const many = Array.from({ length: 250 }, (_, index) => `line ${index}`);
    await appendJobLog(server.deps.db, { id: job.id, workerId: 'hand', lines: many });
    const burst = await stream.nextEvent();
    expect(burst !== 'end' && burst.log.length).toBe(200);
    expect(burst !== 'end' && [burst.log[0], burst.log.at(-1)]).toEqual(['line 50', 'line 249']);
    // Another worker's writes change nothing.
    expect(await setJobStage(server.deps.db, { id: job.id, workerId: 'someone-else', stage: 'uploading' })).toBe(false);

    const states = await server.fetch('/api/jobs', { method: 'POST', json: { tokens: [job.token] } });
    const [state] = (await states.json()) as { stage: string; log: string[] }[];
    expect(state!.stage).toBe('downloading');
    expect(state!.log).toEqual(many.slice(-200));
    const fresh = await openStream([job.token]);
    const first = await fresh.nextEvent();
    expect(first !== 'end' && first.log).toEqual(many.slice(-200));

    await completeJob(server.deps.db, { id: job.id, workerId: 'hand', output: { done: true } });
    expect(await stream.nextEvent()).toEqual({ type: 'output', job: 0, status: 'succeeded', progress: 0.5, stage: 'downloading', log: [], output: { done: true }, error: null });
    expect(await stream.nextEvent()).toBe('end');
    fresh.cancel();
  });
});
