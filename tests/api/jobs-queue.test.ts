import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq, sql } from 'drizzle-orm';
import { jobs } from '../../src/server/db/schema/index.ts';
import { claimJob, completeJob, deleteFinishedJobs, enqueueJob, failJob, findJob, setJobProgress } from '../../src/server/jobs/queue.ts';
import type { Deps } from '../../src/server/deps.ts';
import { startJobWorker, type JobContext } from '../../src/server/jobs/worker.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** JOB_WORKERS=0: the server runs no worker, so every claim here is the test's own. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ JOB_WORKERS: '0' });
});
afterAll(() => server.stop());

let kindCounter = 0;
/** A kind of its own per test, so tests never see each other's jobs. */
const freshKind = () => `test_${++kindCounter}_${Math.random().toString(36).slice(2, 6)}`;

async function jobsOfKind(kind: string) {
  return server.deps.db.select().from(jobs).where(eq(jobs.kind, kind));
}

/** Polls the database (not the clock) until the job reaches a final status, with a generous deadline. */
async function waitForJob(id: string, statuses: string[] = ['succeeded', 'errored'], deadlineMs = 10_000) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const job = await findJob(server.deps.db, id);
    if (job && statuses.includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job?.status}`);
    await Bun.sleep(10);
  }
}

describe('queue', () => {
  test('enqueue, claim, complete', async () => {
    const kind = freshKind();
    const queued = await enqueueJob(server.deps.db, { kind, payload: { n: 1 } });
    expect(queued).toMatchObject({ kind, status: 'queued', payload: { n: 1 }, attempts: 0, maxAttempts: 3, lockedBy: null, output: null });
    await enqueueJob(server.deps.db, { kind, payload: { n: 2 }, delayMs: 3_600_000 }); // not due yet
    await enqueueJob(server.deps.db, { kind: freshKind(), payload: {} }); // another kind

    const claimed = await claimJob(server.deps.db, { workerId: 'w1', kinds: [kind], leaseMs: 60_000 });
    expect(claimed).toMatchObject({ id: queued!.id, status: 'running', attempts: 1, lockedBy: 'w1' });
    expect(claimed!.lockedUntil!.getTime()).toBeGreaterThan(Date.now() + 30_000);
    // The other job of the kind is not due, the third is of another kind.
    expect(await claimJob(server.deps.db, { workerId: 'w2', kinds: [kind], leaseMs: 60_000 })).toBeUndefined();
    expect(await claimJob(server.deps.db, { workerId: 'w2', kinds: [], leaseMs: 60_000 })).toBeUndefined();

    expect(await setJobProgress(server.deps.db, { id: claimed!.id, workerId: 'w1', progress: 0.25 })).toBe(true);
    expect(await setJobProgress(server.deps.db, { id: claimed!.id, workerId: 'w2', progress: 0.75 })).toBe(false);
    expect((await findJob(server.deps.db, claimed!.id))!.progress).toBe(0.25);

    expect(await completeJob(server.deps.db, { id: claimed!.id, workerId: 'w2', output: { wrong: true } })).toBe(false);
    expect(await completeJob(server.deps.db, { id: claimed!.id, workerId: 'w1', output: { sum: 3 } })).toBe(true);
    const done = await findJob(server.deps.db, claimed!.id);
    expect(done).toMatchObject({ status: 'succeeded', output: { sum: 3 }, lockedBy: null, lockedUntil: null, error: null });
    expect(done!.finishedAt).toBeInstanceOf(Date);
    // Finished jobs are never claimed again, and completing twice does nothing.
    expect(await claimJob(server.deps.db, { workerId: 'w1', kinds: [kind], leaseMs: 60_000 })).toBeUndefined();
    expect(await completeJob(server.deps.db, { id: claimed!.id, workerId: 'w1', output: null })).toBe(false);
  });

  test('concurrent claimers never get the same job', async () => {
    const kind = freshKind();
    const enqueued = await Promise.all(Array.from({ length: 10 }, (_, n) => enqueueJob(server.deps.db, { kind, payload: { n } })));
    const ids = enqueued.map((job) => job!.id).sort();
    const burst = await Promise.all(Array.from({ length: 20 }, (_, n) => claimJob(server.deps.db, { workerId: `w${n}`, kinds: [kind], leaseMs: 60_000 })));
    const claimed = burst.filter((job) => job !== undefined);
    expect(claimed.length).toBeGreaterThan(0);
    expect(new Set(claimed.map((job) => job.id)).size).toBe(claimed.length);
    // SKIP LOCKED may make a claimer come back empty while rows remain; the rest are claimed one by one.
    for (;;) {
      const job = await claimJob(server.deps.db, { workerId: 'late', kinds: [kind], leaseMs: 60_000 });
      if (!job) break;
      claimed.push(job);
    }
    expect(claimed.map((job) => job.id).sort()).toEqual(ids);
    const rows = await jobsOfKind(kind);
    expect(rows.every((row) => row.status === 'running' && row.attempts === 1)).toBe(true);
    // Each row is held by the worker that got it.
    for (const job of claimed) expect(rows.find((row) => row.id === job.id)!.lockedBy).toBe(job.lockedBy!);
  });

  test('a stalled job is taken again once its lease ends', async () => {
    const kind = freshKind();
    const job = await enqueueJob(server.deps.db, { kind, payload: {} });
    await claimJob(server.deps.db, { workerId: 'dead', kinds: [kind], leaseMs: 60_000 });
    expect(await claimJob(server.deps.db, { workerId: 'alive', kinds: [kind], leaseMs: 60_000 })).toBeUndefined();
    // The worker died: its lease runs out.
    await server.deps.db.update(jobs).set({ lockedUntil: sql`now() - interval '1 second'` }).where(eq(jobs.id, job!.id));
    const retaken = await claimJob(server.deps.db, { workerId: 'alive', kinds: [kind], leaseMs: 60_000 });
    expect(retaken).toMatchObject({ id: job!.id, status: 'running', attempts: 2, lockedBy: 'alive' });
    // The old holder's late answer changes nothing.
    expect(await completeJob(server.deps.db, { id: job!.id, workerId: 'dead', output: { from: 'dead' } })).toBe(false);
    expect(await failJob(server.deps.db, { id: job!.id, workerId: 'dead', error: 'late' })).toBeUndefined();
    expect(await completeJob(server.deps.db, { id: job!.id, workerId: 'alive', output: { from: 'alive' } })).toBe(true);
    expect((await findJob(server.deps.db, job!.id))!.output).toEqual({ from: 'alive' });
  });

  test('a failure is retried with a backoff, then errored with its message', async () => {
    const kind = freshKind();
    const job = await enqueueJob(server.deps.db, { kind, payload: {}, maxAttempts: 3 });
    await claimJob(server.deps.db, { workerId: 'w', kinds: [kind], leaseMs: 60_000 });
    expect(await failJob(server.deps.db, { id: job!.id, workerId: 'w', error: 'first' })).toBe('queued');
    const backingOff = await findJob(server.deps.db, job!.id);
    expect(backingOff).toMatchObject({ status: 'queued', error: 'first', lockedBy: null, finishedAt: null });
    // The default backoff puts the retry seconds away: not claimable now.
    expect(backingOff!.runAt.getTime()).toBeGreaterThan(Date.now() + 2_000);
    expect(await claimJob(server.deps.db, { workerId: 'w', kinds: [kind], leaseMs: 60_000 })).toBeUndefined();

    await server.deps.db.update(jobs).set({ runAt: sql`now()` }).where(eq(jobs.id, job!.id));
    expect(await claimJob(server.deps.db, { workerId: 'w', kinds: [kind], leaseMs: 60_000 })).toMatchObject({ attempts: 2 });
    expect(await failJob(server.deps.db, { id: job!.id, workerId: 'w', error: 'second', retryDelayMs: 0 })).toBe('queued');
    expect(await claimJob(server.deps.db, { workerId: 'w', kinds: [kind], leaseMs: 60_000 })).toMatchObject({ attempts: 3 });
    expect(await failJob(server.deps.db, { id: job!.id, workerId: 'w', error: 'third and last', retryDelayMs: 0 })).toBe('errored');
    const errored = await findJob(server.deps.db, job!.id);
    expect(errored).toMatchObject({ status: 'errored', error: 'third and last', attempts: 3, lockedBy: null });
    expect(errored!.finishedAt).toBeInstanceOf(Date);
    expect(await claimJob(server.deps.db, { workerId: 'w', kinds: [kind], leaseMs: 60_000 })).toBeUndefined();
  });

  test('a dedupe key leaves one queued job, even when enqueued at once', async () => {
    const kind = freshKind();
    const results = await Promise.all(Array.from({ length: 10 }, () => enqueueJob(server.deps.db, { kind, payload: {}, dedupeKey: 'p1' })));
    expect(results.filter((job) => job !== undefined)).toHaveLength(1);
    expect(await enqueueJob(server.deps.db, { kind, payload: {}, dedupeKey: 'p1' })).toBeUndefined();
    // Other keys, no key, and the same key of another kind are separate.
    expect(await enqueueJob(server.deps.db, { kind, payload: {}, dedupeKey: 'p2' })).toBeDefined();
    expect(await enqueueJob(server.deps.db, { kind, payload: {} })).toBeDefined();
    expect(await enqueueJob(server.deps.db, { kind, payload: {} })).toBeDefined();
    expect(await enqueueJob(server.deps.db, { kind: freshKind(), payload: {}, dedupeKey: 'p1' })).toBeDefined();
    const queuedP1 = await server.deps.db.select().from(jobs).where(and(eq(jobs.kind, kind), eq(jobs.dedupeKey, 'p1')));
    expect(queuedP1).toHaveLength(1);

  });

  test('a running job does not count as a duplicate; its failure then is not retried', async () => {
    const kind = freshKind();
    await enqueueJob(server.deps.db, { kind, payload: {}, dedupeKey: 'k' });
    const running = await claimJob(server.deps.db, { workerId: 'w', kinds: [kind], leaseMs: 60_000 });
    // Work arriving while it runs is queued again (the run may have read the state too early).
    expect(await enqueueJob(server.deps.db, { kind, payload: {}, dedupeKey: 'k' })).toBeDefined();
    // The queued duplicate does the same work, so the failed run ends instead of retrying next to it.
    expect(await failJob(server.deps.db, { id: running!.id, workerId: 'w', error: 'boom', retryDelayMs: 0 })).toBe('errored');
    const rows = await jobsOfKind(kind);
    expect(rows.map((row) => row.status).sort()).toEqual(['errored', 'queued']);
  });

  test('finished jobs are forgotten after the given age; queued and running ones never', async () => {
    const kind = freshKind();
    const [old, recent, queued, running] = await Promise.all([0, 1, 2, 3].map((n) => enqueueJob(server.deps.db, { kind, payload: { n } })));
    for (const job of [old, recent]) {
      await server.deps.db.update(jobs).set({ status: 'running', lockedBy: 'w' }).where(eq(jobs.id, job!.id));
      await completeJob(server.deps.db, { id: job!.id, workerId: 'w', output: null });
    }
    await server.deps.db.update(jobs).set({ finishedAt: sql`now() - interval '8 days'` }).where(eq(jobs.id, old!.id));
    await server.deps.db.update(jobs).set({ status: 'running', lockedBy: 'w', createdAt: sql`now() - interval '30 days'` }).where(eq(jobs.id, running!.id));
    expect(await deleteFinishedJobs(server.deps.db, 7 * 86_400_000)).toBeGreaterThanOrEqual(1);
    const left = (await jobsOfKind(kind)).map((row) => row.id).sort();
    expect(left).toEqual([recent!.id, queued!.id, running!.id].sort());
  });
});

describe('worker', () => {
  test('runs handlers, records outputs and failures, and stops after the job in hand', async () => {
    const echo = freshKind();
    const failing = freshKind();
    const slow = freshKind();
    let releaseSlow!: () => void;
    const slowReleased = new Promise<void>((resolve) => (releaseSlow = resolve));
    let slowStarted!: () => void;
    const slowRunning = new Promise<void>((resolve) => (slowStarted = resolve));
    const worker = startJobWorker(
      server.deps,
      [
        {
          kind: echo,
          execute: async (_deps: Deps, job: { payload: { text: string } }, context: JobContext) => {
            await context.setProgress(0.5);
            return { echoed: job.payload.text };
          },
        },
        {
          kind: failing,
          execute: async () => {
            throw new Error('boom');
          },
        },
        {
          kind: slow,
          execute: async () => {
            slowStarted();
            await slowReleased;
            return { slow: true };
          },
        },
      ],
      { pollMs: 20, leaseMs: 5_000 },
    );
    try {
      const echoJob = await enqueueJob(server.deps.db, { kind: echo, payload: { text: 'hi' } });
      server.deps.jobSignal.notify();
      expect(await waitForJob(echoJob!.id)).toMatchObject({ status: 'succeeded', output: { echoed: 'hi' }, progress: 0.5, attempts: 1 });

      const failJobRow = await enqueueJob(server.deps.db, { kind: failing, payload: {}, maxAttempts: 1 });
      server.deps.jobSignal.notify();
      expect(await waitForJob(failJobRow!.id)).toMatchObject({ status: 'errored', error: 'Error: boom', attempts: 1 });

      // A job whose workers kept dying (claimed more often than maxAttempts) ends errored without running.
      const abandoned = await enqueueJob(server.deps.db, { kind: echo, payload: { text: 'never' }, maxAttempts: 1 });
      await server.deps.db.update(jobs).set({ status: 'running', attempts: 1, lockedBy: 'dead', lockedUntil: sql`now() - interval '1 second'` }).where(eq(jobs.id, abandoned!.id));
      server.deps.jobSignal.notify();
      const gaveUp = await waitForJob(abandoned!.id);
      expect(gaveUp).toMatchObject({ status: 'errored', attempts: 2, output: null });
      expect(gaveUp.error).toContain('abandoned');
    } finally {
      const slowJob = await enqueueJob(server.deps.db, { kind: slow, payload: {} });
      server.deps.jobSignal.notify();
      await slowRunning;
      let stopped = false;
      const stopping = worker.stop().then(() => (stopped = true));
      await Bun.sleep(50);
      expect(stopped).toBe(false); // stop waits for the job in hand
      releaseSlow();
      await stopping;
      expect((await findJob(server.deps.db, slowJob!.id))!.status).toBe('succeeded');
    }
    // Stopped: nothing claims any more.
    const after = await enqueueJob(server.deps.db, { kind: echo, payload: { text: 'late' } });
    server.deps.jobSignal.notify();
    await Bun.sleep(100);
    expect((await findJob(server.deps.db, after!.id))!.status).toBe('queued');
  });
});

describe('fencing by attempt', () => {
  test('a run whose process stalls past its lease finds it lost (signal, writes refused), records nothing, and a fresh attempt runs the job', async () => {
    const kind = freshKind();
    const leaseMs = 1000;
    const seen: { attempt: number; checkAfterStall?: string; abortedAfterStall?: boolean; writeAfterStall?: string }[] = [];
    const worker = startJobWorker(
      server.deps,
      [
        {
          kind,
          execute: async (_deps: Deps, _job: unknown, context: JobContext) => {
            const run: (typeof seen)[number] = { attempt: context.attempt };
            seen.push(run);
            if (context.attempt > 1) return { attempt: context.attempt };
            // The process stalls (no timer, no heartbeat runs) for longer than the lease: a busy loop.
            const until = performance.now() + leaseMs * 1.5;
            while (performance.now() < until) {
              /* starved */
            }
            // No timer ran yet: the check reads the monotonic clock itself, and aborts the signal.
            try {
              context.assertHolds();
              run.checkAfterStall = 'holds';
            } catch (error) {
              run.checkAfterStall = (error as Error).name;
            }
            run.abortedAfterStall = context.signal.aborted;
            run.writeAfterStall = await context.setStage('after the stall').then(
              () => 'written',
              (error: Error) => error.name,
            );
            return { attempt: context.attempt };
          },
        },
      ],
      { pollMs: 20, leaseMs },
    );
    try {
      const job = await enqueueJob(server.deps.db, { kind, payload: {} });
      server.deps.jobSignal.notify();
      const done = await waitForJob(job!.id);
      expect(seen[0]).toEqual({ attempt: 1, checkAfterStall: 'JobLeaseLost', abortedAfterStall: true, writeAfterStall: 'JobLeaseLost' });
      // Attempt 2 succeeds (a later one only if this busy machine starved attempt 2 past its lease too).
      const last = seen.at(-1)!.attempt;
      expect(last).toBeGreaterThanOrEqual(2);
      expect(done).toMatchObject({ status: 'succeeded', attempts: last, output: { attempt: last }, stage: null });
    } finally {
      await worker.stop();
    }
  });

  test("a claim's writes are fenced by its attempt: the same worker id with an earlier attempt changes nothing", async () => {
    const kind = freshKind();
    const queued = await enqueueJob(server.deps.db, { kind, payload: {} });
    const first = await claimJob(server.deps.db, { workerId: 'w', kinds: [kind], leaseMs: 1 });
    await server.deps.db.update(jobs).set({ lockedUntil: sql`now() - interval '1 second'` }).where(eq(jobs.id, queued!.id));
    const second = await claimJob(server.deps.db, { workerId: 'w', kinds: [kind], leaseMs: 60_000 });
    expect([first?.attempts, second?.attempts]).toEqual([1, 2]);
    expect(await setJobProgress(server.deps.db, { id: queued!.id, workerId: 'w', attempt: 1, progress: 0.9 })).toBe(false);
    expect(await completeJob(server.deps.db, { id: queued!.id, workerId: 'w', attempt: 1, output: { from: 1 } })).toBe(false);
    expect(await completeJob(server.deps.db, { id: queued!.id, workerId: 'w', attempt: 2, output: { from: 2 } })).toBe(true);
    expect(await findJob(server.deps.db, queued!.id)).toMatchObject({ status: 'succeeded', output: { from: 2 }, progress: null });
  });
});
