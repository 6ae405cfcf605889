import { afterAll, beforeAll, expect, test } from 'bun:test';
import { and, eq, sql } from 'drizzle-orm';
import { jobs, packages } from '../../src/server/db/schema/index.ts';
import { chunkCollectionJob } from '../../src/server/domains/packages/chunks/chunk-gc.job.ts';
import { storageSweepJob } from '../../src/server/domains/packages/chunks/storage-sweep.job.ts';
import { packagePrepareJob } from '../../src/server/domains/packages/downloads/package-prepare.job.ts';
import type { Job } from '../../src/server/jobs/queue.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { directJobContext, lostJobContext } from '../support/job-context.ts';
import { createPackageRecord, keysUnder, uploadPackage } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 28: a run whose lease is lost changes nothing (define-job.ts). Each job kind with effects beyond
 * its own row, run with the context of a lost lease (the worker's, as it is once the heartbeat found the
 * lease taken or expired), stops before its first effect; run again holding its lease, it does the work.
 * JOB_WORKERS=0: only the test runs jobs here.
 */
let server: TestServer;
let owner: TestUser;
let project: TestProject;

beforeAll(async () => {
  server = await startTestServer({ JOB_WORKERS: '0' });
  owner = await registerUser(server);
  project = await createProject(server, owner);
});
afterAll(() => server.stop());

async function queuedJob(kind: string, dedupeKey: string): Promise<Job> {
  const [row] = await server.deps.db.select().from(jobs).where(and(eq(jobs.kind, kind), eq(jobs.dedupeKey, dedupeKey)));
  if (!row) throw new Error(`no ${kind} job queued for ${dedupeKey}`);
  return row;
}

const game = () => ({ 'game.bin': new Uint8Array(150_000).map((_, i) => (i * 13 + Math.floor(Math.random() * 3)) % 251) });

test('package_prepare: a lost lease makes no torrent; holding it, the run makes it', async () => {
  const pkg = await uploadPackage(server, owner, project.id, game());
  const job = await queuedJob('package_prepare', `package:${pkg.id}`);
  const before = await keysUnder(server, `packages/${pkg.id}/`);
  expect(before).not.toContain(`packages/${pkg.id}/torrent`);
  await expect(packagePrepareJob.execute(server.deps, job, lostJobContext())).rejects.toThrow('lease was lost');
  expect(await keysUnder(server, `packages/${pkg.id}/`)).toEqual(before);
  expect(await packagePrepareJob.execute(server.deps, job, directJobContext())).toEqual({ prepared: true });
  expect(await keysUnder(server, `packages/${pkg.id}/`)).toContain(`packages/${pkg.id}/torrent`);
});

test("chunk_gc: a lost lease deletes none of a deleted package's blobs; holding it, the run deletes them", async () => {
  const pkg = await uploadPackage(server, owner, project.id, game());
  expect((await server.fetch(`/api/projects/${project.id}/packages/${pkg.id}`, { method: 'DELETE', token: owner.token })).status).toBe(200);
  const job = await queuedJob('chunk_gc', `package:${pkg.id}`);
  const own = await keysUnder(server, `packages/${pkg.id}/`);
  expect(own).toContain(`packages/${pkg.id}/index`);
  await expect(chunkCollectionJob.execute(server.deps, job, lostJobContext())).rejects.toThrow('lease was lost');
  expect(await keysUnder(server, `packages/${pkg.id}/`)).toEqual(own);
  await chunkCollectionJob.execute(server.deps, job, directJobContext());
  expect(await keysUnder(server, `packages/${pkg.id}/`)).toEqual([]);
});

test('storage_sweep: a lost lease deletes no expired upload; holding it, the run deletes it', async () => {
  const record = await createPackageRecord(server, owner, project.id, { size: 10, tags: [], entrypoint: null, basePackage: null });
  await server.deps.db.update(packages).set({ uploadExpiresAt: sql`now() - interval '2 days'` }).where(eq(packages.id, record.id));
  const job = { id: 'sweep', kind: storageSweepJob.kind, payload: {} } as Job;
  const exists = async () => (await server.deps.db.select({ id: packages.id }).from(packages).where(eq(packages.id, record.id))).length === 1;
  await expect(storageSweepJob.execute(server.deps, job, lostJobContext())).rejects.toThrow('lease was lost');
  expect(await exists()).toBe(true);
  expect(await storageSweepJob.execute(server.deps, job, directJobContext())).toMatchObject({ expiredUploads: 1 });
  expect(await exists()).toBe(false);
});
