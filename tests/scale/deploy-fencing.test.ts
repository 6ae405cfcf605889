import { afterAll, beforeAll, expect, test } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { findJob } from '../../src/server/jobs/queue.ts';
import { startOneDeploy } from '../api/deploys-support.ts';
import { eventually, okJson, startCluster, uploadAcross, type Cluster } from '../support/cluster.ts';
import { installFakeButler, startFakeItchApi } from '../support/fake-itch/index.ts';
import { processExists, signalProcess } from '../support/server-process.ts';

/**
 * Issue 28: a deploy runs once even when the machine running it starves. Two server processes on one
 * PostgreSQL database; the one whose worker holds a deploy is stopped (SIGSTOP, with its butler) while
 * butler uploads, past the lease; the other takes the job over and deploys it. When the first runs
 * again (SIGCONT) it must stop before touching anything: its butler is killed without pushing, the job's
 * row keeps the second's outcome, and no process meets another attempt's files.
 */

const leaseMs = 3000;
const itch = startFakeItchApi({ keys: {} });
const butler = installFakeButler({ apiUrl: itch.url, steps: 4, stepMs: 20 });
let cluster: Cluster;
const stopped = new Set<number>();

const deployFolders = (dataDir: string) => (existsSync(join(dataDir, 'tmp', 'deploys')) ? readdirSync(join(dataDir, 'tmp', 'deploys')) : []);

beforeAll(async () => {
  cluster = await startCluster({ env: { ITCH_API_URL: itch.url, BUTLER_PATH: butler.path, JOB_LEASE_MS: String(leaseMs), DEPLOY_WORKERS: '1' } });
}, 90_000);
afterAll(async () => {
  for (const pid of stopped) signalProcess(pid, 'SIGKILL');
  await cluster?.stop();
  await itch.stop();
  butler.cleanup();
});

test('the process holding a deploy is stopped past its lease; the other deploys it; continued, the first kills its butler and changes nothing', async () => {
  const { a } = cluster;
  butler.control({ mode: 'hold' });
  const deploy = await startOneDeploy(
    a,
    itch,
    async (token, projectId, archive) => {
      const uploaded = await uploadAcross({ createOn: a, partsTo: [a], finalizeOn: a }, { token } as never, projectId, archive);
      return (await okJson<{ id: string }>(uploaded.finalize, 'finalize')).id;
    },
    'fencedev',
  );
  const held = await eventually('butler uploading', () => butler.records().find((record) => record.outcome === 'hold'), 60_000);
  const first = cluster.nodes.find((node) => held.dir.startsWith(`${node.dataDir}/`))!;
  const second = cluster.nodes.find((node) => node !== first)!;
  expect(first).toBeDefined();

  for (const pid of [first.pid!, held.pid]) {
    stopped.add(pid);
    signalProcess(pid, 'SIGSTOP');
  }
  butler.control({}); // were the held butler to run on, it would push the build a second time
  const done = await eventually(
    'the other process to take the deploy over and finish it',
    async () => {
      const job = await findJob(cluster.db, deploy.jobId);
      return job && (job.status === 'succeeded' || job.status === 'errored') ? job : undefined;
    },
    60_000,
  );
  expect(done).toMatchObject({ status: 'succeeded', error: null, attempts: 2 });

  signalProcess(first.pid!, 'SIGCONT');
  stopped.delete(first.pid!);
  await eventually('the stopped attempt to kill its butler', () => !processExists(held.pid), 30_000);
  stopped.delete(held.pid);
  await eventually('the first process to say its attempt lost the lease', () => first.readLog().includes('job lease lost'), 30_000);

  const records = butler.records().filter((record) => record.target === 'fencedev/game');
  expect(records.map((record) => [record.outcome, record.pid === held.pid])).toEqual([
    ['hold', true],
    ['succeeded', false],
  ]);
  expect(records[1]!.dir.startsWith(`${second.dataDir}/`)).toBe(true);
  // The row is the second attempt's: its output and a single success in its log.
  const after = await findJob(cluster.db, deploy.jobId);
  expect(after).toMatchObject({ status: 'succeeded', attempts: 2, output: done!.output, finishedAt: done!.finishedAt, log: done!.log });
  expect(after!.log.filter((line) => String(line).startsWith('Deployed:'))).toHaveLength(1);
  for (const node of cluster.nodes) {
    expect({ node: node.name, enoent: node.readLog().includes('ENOENT'), failed: node.readLog().includes('"job failed"') }).toEqual({ node: node.name, enoent: false, failed: false });
    expect({ node: node.name, folders: deployFolders(node.dataDir) }).toEqual({ node: node.name, folders: [] });
  }
}, 180_000);
