import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { jobs } from '../../src/server/db/schema/index.ts';
import { defineJob, JobPayloadError } from '../../src/server/jobs/define-job.ts';
import { definePeriodicJob, schedulePeriodicJobs } from '../../src/server/jobs/periodic-job.ts';
import { enqueueJob, findJob } from '../../src/server/jobs/queue.ts';
import { startJobWorker } from '../../src/server/jobs/worker.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** JOB_WORKERS=0: only the workers a test starts run jobs. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ JOB_WORKERS: '0' });
});
afterAll(() => server.stop());

let kindCounter = 0;
const freshKind = () => `define_${++kindCounter}_${Math.random().toString(36).slice(2, 6)}`;

async function waitForJob(id: string, deadlineMs = 10_000) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const job = await findJob(server.deps.db, id);
    if (job && (job.status === 'succeeded' || job.status === 'errored')) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job?.status}`);
    await Bun.sleep(10);
  }
}

function counterJob(kind = freshKind()) {
  const seen: number[] = [];
  const job = defineJob({
    kind,
    payload: z.object({ n: z.number().int() }),
    run: async (_deps, payload) => {
      seen.push(payload.n);
      return { doubled: payload.n * 2 };
    },
  });
  return { job, seen };
}

describe('defineJob', () => {
  test('enqueue checks the payload; a payload that does not fit queues nothing', async () => {
    const { job } = counterJob();
    const queued = await job.enqueue(server.deps.db, { n: 2 }, { dedupeKey: 'one', maxAttempts: 5 });
    expect(queued).toMatchObject({ kind: job.kind, payload: { n: 2 }, dedupeKey: 'one', maxAttempts: 5, status: 'queued' });
    expect(await job.enqueue(server.deps.db, { n: 3 }, { dedupeKey: 'one' })).toBeUndefined();
    const bad = job.enqueue(server.deps.db, { n: 'two' } as unknown as { n: number });
    await expect(bad).rejects.toBeInstanceOf(JobPayloadError);
    await expect(bad).rejects.toThrow(`job kind '${job.kind}'`);
    const rows = await server.deps.db.select().from(jobs).where(eq(jobs.kind, job.kind));
    expect(rows.map((row) => row.payload)).toEqual([{ n: 2 }]);
  });

  test("enqueue inside the caller's transaction is part of it", async () => {
    const { job } = counterJob();
    await server.deps.db
      .transaction(async (tx) => {
        await job.enqueue(tx, { n: 1 });
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    await server.deps.db.transaction(async (tx) => {
      await job.enqueue(tx, { n: 2 }, { delayMs: 3_600_000 });
    });
    const rows = await server.deps.db.select().from(jobs).where(eq(jobs.kind, job.kind));
    expect(rows.map((row) => row.payload)).toEqual([{ n: 2 }]);
    expect(rows[0]!.runAt.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
  });

  test('a stored payload that no longer fits fails that job for good, with the reason; good ones run', async () => {
    const { job, seen } = counterJob();
    const stale = await enqueueJob(server.deps.db, { kind: job.kind, payload: { count: 'x' }, maxAttempts: 3 });
    const good = await job.enqueue(server.deps.db, { n: 21 });
    const worker = startJobWorker(server.deps, [job], { pollMs: 20, leaseMs: 5_000 });
    try {
      server.deps.jobSignal.notify();
      const failed = await waitForJob(stale!.id);
      expect(failed).toMatchObject({ status: 'errored', attempts: 1, output: null });
      expect(failed.error).toContain(`JobPayloadError: The payload stored for job kind '${job.kind}' does not fit its schema`);
      expect(failed.error).toContain('n:');
      expect(await waitForJob(good!.id)).toMatchObject({ status: 'succeeded', output: { doubled: 42 } });
      expect(seen).toEqual([21]);
    } finally {
      await worker.stop();
    }
  });

  test('a worker refuses a job list with a kind twice', () => {
    const { job } = counterJob();
    expect(() => startJobWorker(server.deps, [job, job], { pollMs: 20, leaseMs: 5_000 })).toThrow(`kind '${job.kind}'`);
  });
});

describe('definePeriodicJob', () => {
  test('scheduling queues one run; each run queues its successor before it works', async () => {
    const kind = freshKind();
    let runs = 0;
    const periodic = definePeriodicJob({
      kind,
      everyMs: 60 * 60_000,
      run: async () => {
        runs++;
        throw new Error('the work failed');
      },
    });
    const { job: other } = counterJob();
    await schedulePeriodicJobs(server.deps.db, [periodic, other]);
    await schedulePeriodicJobs(server.deps.db, [periodic, other]);
    const queued = await server.deps.db.select().from(jobs).where(eq(jobs.kind, kind));
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ dedupeKey: kind, status: 'queued' });
    expect(queued[0]!.runAt.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(await server.deps.db.select().from(jobs).where(eq(jobs.kind, other.kind))).toEqual([]);

    // Due now: run it; the run fails, the chain goes on.
    await server.deps.db.update(jobs).set({ runAt: new Date(0), maxAttempts: 1 }).where(eq(jobs.id, queued[0]!.id));
    const worker = startJobWorker(server.deps, [periodic], { pollMs: 20, leaseMs: 5_000 });
    try {
      server.deps.jobSignal.notify();
      expect(await waitForJob(queued[0]!.id)).toMatchObject({ status: 'errored', error: 'Error: the work failed' });
    } finally {
      await worker.stop();
    }
    expect(runs).toBe(1);
    const next = await server.deps.db.select().from(jobs).where(eq(jobs.kind, kind));
    expect(next.filter((row) => row.status === 'queued')).toHaveLength(1);
  });
});
