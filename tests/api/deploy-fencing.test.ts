import { afterAll, expect, test } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { findJob } from '../../src/server/jobs/queue.ts';
import { startChildServer, type ChildServer } from '../support/child-server.ts';
import { installFakeButler, startFakeItchApi } from '../support/fake-itch/index.ts';
import { processExists, signalProcess } from '../support/server-process.ts';
import { sendArchiveTo, startOneDeploy, untilAnswered } from './deploys-support.ts';

/**
 * Issue 28: a job runs once even when its machine is starved. The server (a child process, two deploy
 * loops) runs a deploy whose butler is uploading; the server and its butler are stopped (SIGSTOP) past
 * the job's lease, as a machine starved of CPU would be. When the server runs again (SIGCONT) its
 * attempt has lost the lease by its own clock before anyone said so: it kills its butler (still stopped:
 * it never pushes), records nothing, gives the job back, and a fresh attempt pushes it once.
 * The two-process variant (another server takes the job over meanwhile) is tests/scale/deploy-fencing.test.ts.
 */

const leaseMs = 3000;
const itch = startFakeItchApi({ keys: {} });
const butler = installFakeButler({ apiUrl: itch.url, steps: 4, stepMs: 20 });
let server: ChildServer | undefined;
const stopped = new Set<number>();

afterAll(async () => {
  for (const pid of stopped) signalProcess(pid, 'SIGKILL');
  await server?.stop();
  await itch.stop();
  butler.cleanup();
});

const until = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs?: number) => untilAnswered(what, probe, () => server?.readLog() ?? '', timeoutMs);

test('a server stopped past its lease mid-upload: on SIGCONT its attempt kills its butler unpushed, and a fresh attempt deploys once', async () => {
  butler.control({ mode: 'hold' });
  server = await startChildServer({ env: { ITCH_API_URL: itch.url, BUTLER_PATH: butler.path, JOB_POLL_MS: '50', JOB_LEASE_MS: String(leaseMs), DEPLOY_WORKERS: '2' } });
  const child = server;
  const deploy = await startOneDeploy(child, itch, sendArchiveTo(child), 'fencedev');
  const held = await until('butler uploading', () => butler.records().find((record) => record.outcome === 'hold'));
  const pid = child.pid;
  expect(pid).toBeNumber();

  // The whole machine starves: the server and its butler stop, for longer than the lease.
  for (const each of [pid!, held.pid]) {
    stopped.add(each);
    signalProcess(each, 'SIGSTOP');
  }
  butler.control({}); // were the held butler to run on, it would push
  // A stopped process cannot be early: the lease has ended by its own clock once this much time passed.
  await Bun.sleep(leaseMs + 500);
  signalProcess(pid!, 'SIGCONT');
  stopped.delete(pid!);

  await until('the stalled attempt to kill its butler', () => (processExists(held.pid) ? undefined : true), 30_000);
  stopped.delete(held.pid);
  const state = await until('the deploy to finish', async () => {
    const response = await child.fetch('/api/jobs', { method: 'POST', json: { tokens: [deploy.jobToken] } });
    const [job] = (await response.json()) as { status: string; error: string | null }[];
    return job!.status === 'succeeded' || job!.status === 'errored' ? job : undefined;
  });
  expect(state).toMatchObject({ status: 'succeeded', error: null });

  const records = butler.records().filter((record) => record.target === 'fencedev/game');
  // One push of the build: the held butler never finished (its pid has no second record).
  expect(records.map((record) => [record.outcome, record.pid === held.pid])).toEqual([
    ['hold', true],
    ['succeeded', false],
  ]);
  // Each attempt had its own folder: the fresh one pushed its own files, not the stalled one's.
  expect(records[1]!.dir).not.toBe(held.dir);
  expect(records[1]!.files.map((file) => file.path)).toEqual(['game.txt']);
  const log = child.readLog();
  expect(log).toContain('job lease lost');
  expect(log).not.toContain('ENOENT');
  expect(log).not.toContain('job failed');
  expect(existsSync(join(child.dataDir, 'tmp', 'deploys')) ? readdirSync(join(child.dataDir, 'tmp', 'deploys')) : []).toEqual([]);
  await child.kill();
  const job = await child.withDatabase((db) => findJob(db, deploy.jobId));
  expect(job?.status).toBe('succeeded');
  expect(job?.log.filter((line) => String(line).startsWith('Deployed:'))).toHaveLength(1);
}, 120_000);
