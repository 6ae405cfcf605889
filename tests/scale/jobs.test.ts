import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { readEvents } from '../../src/shared/api/jobs.ts';
import type { FinalizedContentImage } from '../../src/shared/schemas/content-images.ts';
import type { JobUpdatedEvent } from '../../src/shared/schemas/jobs.ts';
import type { UploadInfo } from '../../src/shared/schemas/packages.ts';
import { newId } from '../../src/server/db/ids.ts';
import { jobs } from '../../src/server/db/schema/index.ts';
import { serverJobs } from '../../src/server/jobs-list.ts';
import { isPeriodicJob } from '../../src/server/jobs/periodic-job.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { errorsOf, eventually, jobsRunBy, okJson, packArchiveOf, startCluster, uploadAcross, type Cluster, type ClusterNode } from '../support/cluster.ts';
import { photoLike } from '../support/images.ts';
import { putPart, sha1Hex } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';

/**
 * The job queue with workers in two processes (JOB_WORKERS=2 each, plus each process's maintenance
 * loop) on one database: every job is claimed once and runs once, on either process, and both take a
 * share; a job's events stream from the process that does not run it. Runs are counted twice: in the
 * jobs rows (attempts counts claims) and in the 'job succeeded' lines each process logs.
 */

let cluster: Cluster;
let a: ClusterNode;
let b: ClusterNode;
let admin: TestUser;
let project: TestProject;

beforeAll(async () => {
  cluster = await startCluster();
  ({ a, b } = cluster);
  admin = await registerUser(a.server); // the first account: the instance's administrator
  project = await createProject(b.server, admin);
}, 90_000);
afterAll(() => cluster?.stop());

/** Which process ran each of the jobs, from both logs: job id → names of the processes that logged its success. */
function runners(jobIds: string[]): Map<string, string[]> {
  const wanted = new Set(jobIds);
  const ran = new Map<string, string[]>(jobIds.map((id) => [id, []]));
  for (const node of cluster.nodes) {
    for (const { job } of jobsRunBy(node)) if (wanted.has(job)) ran.get(job)!.push(node.name);
  }
  return ran;
}

/** Each job ran once (one claim, one success line across both logs), and each process ran some. */
async function expectRanOnceOnEither(rows: { id: string; status: string; attempts: number }[], count: number): Promise<void> {
  expect(rows).toHaveLength(count);
  expect(rows.filter((row) => row.status !== 'succeeded' || row.attempts !== 1)).toEqual([]);
  // A worker logs the success just after its commit: give the last lines a moment to reach the logs.
  const ids = rows.map((row) => row.id);
  await eventually('a success line for every job', () => [...runners(ids).values()].every((names) => names.length > 0), 5_000).catch(() => undefined);
  const ran = runners(ids);
  const notOnce = [...ran].filter(([, names]) => names.length !== 1);
  expect(notOnce).toEqual([]);
  const perProcess = Object.fromEntries(cluster.nodes.map((node) => [node.name, [...ran.values()].filter(([name]) => name === node.name).length]));
  for (const node of cluster.nodes) expect({ node: node.name, ran: perProcess[node.name]! > 0 }).toEqual({ node: node.name, ran: true });
}

async function jobRows(kind: string, dedupeKeys: string[]) {
  return cluster.db.select().from(jobs).where(and(eq(jobs.kind, kind), inArray(jobs.dedupeKey, dedupeKeys)));
}

describe('jobs claimed exactly once with workers in both processes', () => {
  test('packages finalized on both processes: each package_prepare ran once; deleted on both: each chunk_gc ran once; both processes took some', async () => {
    const count = 12;
    const packageIds = await Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const node = index % 2 ? b : a;
        const archive = await packArchiveOf({ [`file-${index}.txt`]: `package ${index} `.repeat(1000), 'shared.txt': 'same in every package' });
        const uploaded = await uploadAcross({ createOn: node, partsTo: [node], finalizeOn: node }, admin, project.id, archive);
        return (await okJson<{ id: string }>(uploaded.finalize, `finalize ${index}`)).id;
      }),
    );
    const keys = packageIds.map((id) => `package:${id}`);
    const prepared = await eventually('every package_prepare job to finish', async () => {
      const rows = await jobRows('package_prepare', keys);
      return rows.length === count && rows.every((row) => row.status === 'succeeded' || row.status === 'errored') ? rows : undefined;
    }, 30_000);
    await expectRanOnceOnEither(prepared, count);

    await Promise.all(
      packageIds.map((id, index) => okJson((index % 2 ? a : b).fetch(`/api/projects/${project.id}/packages/${id}`, { method: 'DELETE', token: admin.token }), `delete ${index}`)),
    );
    const collected = await eventually('every chunk_gc job to finish', async () => {
      const rows = await jobRows('chunk_gc', keys);
      return rows.length === count && rows.every((row) => row.status === 'succeeded' || row.status === 'errored') ? rows : undefined;
    }, 30_000);
    await expectRanOnceOnEither(collected, count);
  }, 60_000);

  test('200 jobs due at the same instant, raced for by the worker loops of both processes: each claimed once and run once', async () => {
    // A periodic sweep's kind (cheap, harmless when repeated: it forgets expired sign-in counters; each
    // run tries to queue its successor, which its dedupe key keeps to one). Queued in one statement.
    const kind = 'forget_sign_in_counters';
    const ids = Array.from({ length: 200 }, () => newId());
    await cluster.db.insert(jobs).values(ids.map((id) => ({ id, kind, payload: {}, runAt: sql`now()`, maxAttempts: 3 })));
    const rows = await eventually('the 200 jobs to finish', async () => {
      const found = await cluster.db.select().from(jobs).where(inArray(jobs.id, ids));
      return found.every((row) => row.status === 'succeeded' || row.status === 'errored') ? found : undefined;
    }, 40_000);
    await expectRanOnceOnEither(rows, ids.length);
  }, 60_000);

  test('each periodic job has one queued run, although both processes scheduled them at start', async () => {
    const periodic = serverJobs.filter(isPeriodicJob).map((job) => job.kind);
    expect(periodic.length).toBeGreaterThan(3);
    const queued = await cluster.db
      .select({ kind: jobs.kind, n: sql<number>`count(*)::int` })
      .from(jobs)
      .where(and(inArray(jobs.kind, periodic), eq(jobs.status, 'queued')))
      .groupBy(jobs.kind);
    expect(Object.fromEntries(queued.map((row) => [row.kind, Number(row.n)]))).toEqual(Object.fromEntries(periodic.map((kind) => [kind, 1])));
  });
});

const [width, height] = [500, 300];

/** The paste flow with its steps on different processes: created on one, the bytes to `partTo`, finalized on `finalizeOn`. */
async function uploadImage(createOn: ClusterNode, partTo: ClusterNode, finalizeOn: ClusterNode, bytes: Uint8Array): Promise<FinalizedContentImage> {
  const created = await okJson<{ id: string; uploadInfo: UploadInfo }>(
    createOn.fetch(`/api/projects/${project.id}/content/images`, { method: 'POST', token: admin.token, json: { size: bytes.length, width, height, scale: 100 } }),
    'create content image',
  );
  await okJson(putPart({ ...created.uploadInfo, uploadUrl: partTo.at(created.uploadInfo.uploadUrl) }, 0, bytes), 'content image part');
  return okJson<FinalizedContentImage>(
    finalizeOn.fetch(`/api/projects/${project.id}/content/images/${created.id}/finalize`, {
      method: 'PUT',
      json: { token: created.uploadInfo.token, parts: [{ part: 0, hash: sha1Hex(bytes), size: bytes.length }] },
    }),
    'finalize content image',
  );
}

type Received = { event: JobUpdatedEvent; at: number };

async function follow(node: ClusterNode, token: string): Promise<Received[]> {
  const response = await node.fetch(`/api/jobs?token=${encodeURIComponent(token)}`, { headers: { accept: 'text/event-stream' } });
  expect(response.status).toBe(200);
  const received: Received[] = [];
  for await (const { event, data } of readEvents(response.body!)) {
    if (event === 'job_updated') received.push({ event: JSON.parse(data) as JobUpdatedEvent, at: Date.now() });
  }
  return received;
}

describe('job events across processes', () => {
  test("a job's progress, stage, log and output stream live from the process that does not run it", async () => {
    const images: FinalizedContentImage[] = [];
    for (let seed = 1; seed <= 4; seed++) {
      const [first, second] = seed % 2 ? [a, b] : [b, a];
      images.push(await uploadImage(first, second, first, await photoLike(width, height, { format: 'png', seed })));
    }
    const started = await okJson<{ job: string; token: string }>(a.fetch('/api/admin/maintenance/optimize-content-images', { method: 'POST', token: admin.token }), 'start');
    const [onA, onB] = await Promise.all([follow(a, started.token), follow(b, started.token)]);

    await eventually('the success line of the job', () => runners([started.job]).get(started.job)!.length > 0, 5_000);
    const ranOn = runners([started.job]).get(started.job)!;
    expect(ranOn).toHaveLength(1);
    const [runner, watcher] = ranOn[0] === 'A' ? [onA, onB] : [onB, onA];
    const events = watcher.map((item) => item.event);
    expect(events.at(-1)).toMatchObject({ type: 'output', status: 'succeeded', output: { images: images.length, failed: 0 } });
    // Seen while it ran: the stage, progress part way (in order), and each log line once.
    expect(events.some((event) => event.type === 'progress' && event.status === 'running' && event.stage === 're-encoding')).toBe(true);
    const progress = events.flatMap((event) => (event.type === 'progress' && event.progress !== null ? [event.progress] : []));
    expect(progress.filter((value) => value > 0 && value < 1).length).toBeGreaterThan(0);
    expect([...progress].sort((x, y) => x - y)).toEqual(progress);
    const log = events.flatMap((event) => event.log);
    expect(log).toEqual([`Re-encoding ${images.length} images`, `Re-encoded ${images.length} images`]);
    // Both streams end with the same outcome, at about the same moment: the runner's notifications
    // reach the other process at once (its streams' fallback poll is every 2 s).
    const outcome = ({ event }: Received) => ({ type: event.type, status: event.status, output: 'output' in event ? event.output : undefined });
    expect(outcome(watcher.at(-1)!)).toEqual(outcome(runner.at(-1)!));
    expect(Math.abs(watcher.at(-1)!.at - runner.at(-1)!.at)).toBeLessThan(1500);

    // The sizes the runner wrote to the bucket are what either process serves.
    for (const image of images) {
      const fromA = new Uint8Array(await (await a.fetch(`/content-images/${image.id}/320`, { headers: { accept: 'image/webp' } })).arrayBuffer());
      const fromB = new Uint8Array(await (await b.fetch(`/content-images/${image.id}/320`, { headers: { accept: 'image/webp' } })).arrayBuffer());
      expect(fromA.length).toBeGreaterThan(100);
      expect(sha1Hex(fromB)).toBe(sha1Hex(fromA));
    }
    expect([...errorsOf(a), ...errorsOf(b)]).toEqual([]);
  }, 60_000);
});
