import { afterAll, expect, test } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { jobs } from '../../src/server/db/schema/index.ts';
import { findJob } from '../../src/server/jobs/queue.ts';
import { startChildServer, type ChildServer } from '../support/child-server.ts';
import { installFakeButler, startFakeItchApi } from '../support/fake-itch/index.ts';
import { processExists } from '../support/server-process.ts';
import { sendArchiveTo, startOneDeploy, untilAnswered } from './deploys-support.ts';

/**
 * Issue 18: a deploy is durable. The real server runs as a child process and is killed with SIGKILL
 * while butler uploads; butler dies with it (it never pushes on alone), and after the restart the job's
 * lease ends, another worker runs it afresh to succeeded, and its private folder is gone. The lease is
 * long (a busy machine never loses it by a slow heartbeat) and its end is written while the server is down.
 */

const itch = startFakeItchApi({ keys: {} });
const butler = installFakeButler({ apiUrl: itch.url, steps: 4, stepMs: 20 });
let server: ChildServer | undefined;

afterAll(async () => {
  await server?.stop();
  await itch.stop();
  butler.cleanup();
});

async function json<T>(response: Response, what: string): Promise<T> {
  if (response.status !== 200) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs?: number) => untilAnswered(what, probe, () => server?.readLog() ?? '', timeoutMs);

test('a server killed mid-upload: butler dies with it, and after the restart the deploy runs again to succeeded', async () => {
  butler.control({ mode: 'hang' });
  // A lease far longer than any stall of a busy machine: the test ends the dead server's lease itself.
  server = await startChildServer({ env: { ITCH_API_URL: itch.url, BUTLER_PATH: butler.path, JOB_POLL_MS: '50', JOB_LEASE_MS: '120000' } });
  const child = server;
  const deploy = await startOneDeploy(child, itch, sendArchiveTo(child), 'crashdev');
  const jobId = deploy.jobId;

  // butler is uploading (it prints progress, then hangs): kill the server outright.
  const hanging = await until('butler uploading', () => butler.records().find((record) => record.outcome === 'hang'));
  const folder = join(child.dataDir, 'tmp', 'deploys', jobId);
  expect(existsSync(folder)).toBe(true);
  butler.control({});
  await child.kill();
  await until('butler to die with the server', () => (processExists(hanging.pid) ? undefined : true), 10_000);

  // What the lease's end would do after JOB_LEASE_MS, now: the dead worker's claim is over.
  await child.withDatabase((db) => db.update(jobs).set({ lockedUntil: sql`now() - interval '1 second'` }).where(eq(jobs.id, jobId)));
  await child.restart();
  const done = await until('the deploy to finish after the restart', async () => {
    const state = await json<{ status: string; error: string | null }[]>(await child.fetch('/api/jobs', { method: 'POST', json: { tokens: [deploy.jobToken] } }), 'job state');
    return state[0]!.status === 'succeeded' || state[0]!.status === 'errored' ? state[0] : undefined;
  }, 60_000);
  expect(done).toMatchObject({ status: 'succeeded', error: null });
  const pushes = butler.records().filter((record) => record.target === 'crashdev/game');
  expect(pushes.map((record) => record.outcome)).toEqual(['hang', 'succeeded']);
  expect(pushes[1]!.files.map((file) => file.path)).toEqual(['game.txt']);
  expect(existsSync(folder)).toBe(false);
  expect(readdirSync(join(child.dataDir, 'tmp', 'deploys'))).toEqual([]);
  await child.kill();
  const job = await child.withDatabase((db) => findJob(db, jobId));
  expect(job?.attempts).toBe(2);
}, 120_000);
