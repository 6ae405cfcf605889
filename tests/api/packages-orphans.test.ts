import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { isPeriodicJob } from '../../src/server/jobs/periodic-job.ts';
import { JobLeaseLost } from '../../src/server/jobs/lease.ts';
import { loadConfig } from '../../src/server/config.ts';
import { jobs, packages } from '../../src/server/db/schema/index.ts';
import { orphanPackagesCollectJob } from '../../src/server/domains/packages/records/orphan-collect.job.ts';
import { collectOrphanPackages } from '../../src/server/domains/packages/records/orphan-collect.service.ts';
import { applyRetention } from '../../src/server/domains/projects/retention.service.ts';
import { serverJobs } from '../../src/server/jobs-list.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { directJobContext, lostJobContext } from '../support/job-context.ts';
import { createPackageRecord, keysUnder, packFiles, sendArchive, uploadPackage, waitForJob } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The orphan collector (packages/records/orphan-collect.service.ts, issue 29): packages in no version
 * untouched for ORPHAN_PACKAGE_DAYS (7 here, the default) are deleted through the user's delete path,
 * blobs released by chunk_gc; packages in a version, uploads under way, patches not resolved and their
 * bases stay; leaving a deleted version restarts the clock; 0 days collects nothing.
 */
let server: TestServer;
let owner: TestUser;
let project: TestProject;
const day = 86_400_000;

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server);
  project = await createProject(server, owner);
}, 30_000);
afterAll(() => server?.stop());

let seed = 0;
const upload = (options: Parameters<typeof uploadPackage>[4] = {}) => uploadPackage(server, owner, project.id, { [`file-${++seed}.txt`]: `content ${seed} ${Math.random()}` }, options);
const exists = async (id: string) => (await server.deps.db.select({ id: packages.id }).from(packages).where(eq(packages.id, id))).length === 1;
const ageBy = (id: string, ms: number) => server.deps.db.update(packages).set({ touchedAt: new Date(Date.now() - ms) }).where(eq(packages.id, id));
const createVersion = async (title: string, ids: string[]) => {
  const response = await server.fetch(`/api/projects/${project.id}/versions`, { method: 'POST', token: owner.token, json: { title, packages: ids } });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: string };
};
/** The chunk_gc job the delete queued, run to its end: the package's blobs are gone after it. */
const blobsReleased = async (id: string) => {
  const [job] = await server.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'chunk_gc'), eq(jobs.dedupeKey, `package:${id}`)));
  expect(job).toBeDefined();
  expect((await waitForJob(server, job!.id)).status).toBe('succeeded');
  return (await keysUnder(server, `packages/${id}/`)).length === 0;
};

test('the collector is one of the server jobs, periodic, hourly', () => {
  expect(serverJobs).toContain(orphanPackagesCollectJob);
  expect(isPeriodicJob(orphanPackagesCollectJob)).toBe(true);
  expect(orphanPackagesCollectJob.everyMs).toBe(60 * 60_000);
});

test('ORPHAN_PACKAGE_DAYS: 7 by default, 0 means never, fractions allowed, negatives and words refused', () => {
  const base = { DATA_DIR: server.dataDir, SECRET_KEY: 'test-secret-key-that-is-long-enough-0123456789' };
  expect(loadConfig(base).orphanPackages.graceMs).toBe(7 * day);
  expect(loadConfig({ ...base, ORPHAN_PACKAGE_DAYS: '0' }).orphanPackages.graceMs).toBe(0);
  expect(loadConfig({ ...base, ORPHAN_PACKAGE_DAYS: '0.5' }).orphanPackages.graceMs).toBe(day / 2);
  for (const bad of ['-1', 'week', '1e9']) expect(() => loadConfig({ ...base, ORPHAN_PACKAGE_DAYS: bad })).toThrow(/ORPHAN_PACKAGE_DAYS/);
});

describe('collection', () => {
  test('nothing goes within 7 days; then orphans go with their blobs, while one in a version and an upload under way stay', async () => {
    const orphan = await upload();
    const listed = await upload();
    await createVersion('kept', [listed.id]);
    const archive = await packFiles(server, { 'partial.txt': 'never finished' });
    const uploading = await createPackageRecord(server, owner, project.id, { size: archive.length, tags: [] });
    expect((await keysUnder(server, `packages/${orphan.id}/`)).length).toBeGreaterThan(0);

    // Six days on, nothing is old enough.
    expect(await collectOrphanPackages(server.deps, Date.now() + 6 * day)).toEqual({ collected: 0, kept: 0 });
    const fresh = await upload();
    // Eight days on, fresh is stale by that clock too: both orphans go, nothing is refused.
    expect(await collectOrphanPackages(server.deps, Date.now() + 8 * day)).toEqual({ collected: 2, kept: 0 });
    expect(await exists(orphan.id)).toBe(false);
    expect(await exists(fresh.id)).toBe(false);
    expect(await exists(listed.id)).toBe(true);
    expect(await exists(uploading.id)).toBe(true);
    expect(await blobsReleased(orphan.id)).toBe(true);
    expect((await server.fetch(`/api/projects/${project.id}/packages/${orphan.id}`, { token: owner.token })).status).toBe(404);
    // What stays still downloads its index.
    expect((await server.fetch(`/api/projects/${project.id}/packages/${listed.id}/download?filter=index`, { token: owner.token })).status).toBe(200);
  });

  test('through the job with the real clock: only the package untouched for 7 days goes', async () => {
    const stale = await upload();
    const fresh = await upload();
    await ageBy(stale.id, 7 * day + 60_000);
    await ageBy(fresh.id, 7 * day - 60_000);
    const output = await orphanPackagesCollectJob.execute(server.deps, { id: 'x', kind: 'orphan_packages_collect', payload: {} } as never, directJobContext('x'));
    expect(output).toEqual({ collected: 1, kept: 0 });
    expect(await exists(stale.id)).toBe(false);
    expect(await exists(fresh.id)).toBe(true);
    expect(await blobsReleased(stale.id)).toBe(true);
  });

  test('a run whose lease is lost deletes nothing', async () => {
    const stale = await upload();
    await ageBy(stale.id, 30 * day);
    await expect(collectOrphanPackages(server.deps, Date.now(), lostJobContext())).rejects.toBeInstanceOf(JobLeaseLost);
    expect(await exists(stale.id)).toBe(true);
    expect(await collectOrphanPackages(server.deps, Date.now(), directJobContext())).toMatchObject({ collected: 1 });
    expect(await exists(stale.id)).toBe(false);
  });

  test('a package that leaves a deleted version is kept 7 days from then, however old', async () => {
    const old = await upload();
    const version = await createVersion('to-delete', [old.id]);
    await ageBy(old.id, 60 * day);
    await collectOrphanPackages(server.deps);
    expect(await exists(old.id)).toBe(true);
    expect((await server.fetch(`/api/projects/${project.id}/versions/${version.id}`, { method: 'DELETE', token: owner.token })).status).toBe(200);
    await collectOrphanPackages(server.deps, Date.now() + 6 * day);
    expect(await exists(old.id)).toBe(true);
    await collectOrphanPackages(server.deps, Date.now() + 8 * day);
    expect(await exists(old.id)).toBe(false);
  });

  test('retention deleting a version touches its packages too', async () => {
    const own = await createProject(server, owner);
    const branch = await (await server.fetch(`/api/projects/${own.id}/branches`, { method: 'POST', token: owner.token, json: { title: 'main' } })).json();
    expect((await server.fetch(`/api/projects/${own.id}/branches/${branch.id}`, { method: 'PATCH', token: owner.token, json: { retention: { quotaCount: 1 } } })).status).toBe(200);
    const first = await uploadPackage(server, owner, own.id, { 'v1.txt': 'first' });
    const publish = async (title: string, ids: string[]) => {
      const created = await server.fetch(`/api/projects/${own.id}/versions`, { method: 'POST', token: owner.token, json: { title, packages: ids } });
      expect(created.status).toBe(200);
      const version = (await created.json()) as { id: string };
      expect((await server.fetch(`/api/projects/${own.id}/branches/${branch.id}/versions/${version.id}`, { method: 'POST', token: owner.token })).status).toBe(200);
      return version;
    };
    const one = await publish('1', [first.id]);
    await ageBy(first.id, 60 * day);
    await publish('2', []);
    // The publish queued a retention run; whichever runs first (a worker or this call) deletes version 1.
    await applyRetention(server.deps, own.id);
    expect((await server.fetch(`/api/projects/${own.id}/versions/${one.id}`, { token: owner.token })).status).toBe(404);
    const [row] = await server.deps.db.select({ touchedAt: packages.touchedAt }).from(packages).where(eq(packages.id, first.id));
    expect(row!.touchedAt.getTime()).toBeGreaterThan(Date.now() - day);
    await collectOrphanPackages(server.deps, Date.now() + 6 * day);
    expect(await exists(first.id)).toBe(true);
  });

  test('the base of a patch not resolved yet stays, and so does the patch; once resolved, both may go', async () => {
    const base = await upload();
    const patchArchive = await packFiles(server, { 'patched.txt': 'a patch' }, { basePackage: base.id });
    const { id: patchId, finalize } = await sendArchive(server, owner, project.id, patchArchive, { basePackage: base.id });
    expect(finalize.status).toBe(200);
    expect(((await finalize.json()) as Package).status).toBe('finalized');
    const result = await collectOrphanPackages(server.deps, Date.now() + 30 * day);
    expect(result.kept).toBe(1); // the base: an unfinished patch needs its chunks
    expect(await exists(base.id)).toBe(true);
    expect(await exists(patchId)).toBe(true); // 'finalized' is never a candidate
    const resolve = await server.fetch(`/api/projects/${project.id}/packages/${patchId}/resolve`, { method: 'POST', token: owner.token });
    expect((await waitForJob(server, (await resolve.json()).job)).status).toBe('succeeded');
    expect(await collectOrphanPackages(server.deps, Date.now() + 30 * day)).toMatchObject({ kept: 0 });
    expect(await exists(base.id)).toBe(false);
    expect(await exists(patchId)).toBe(false);
  });

  test('ORPHAN_PACKAGE_DAYS=0 collects nothing, however old', async () => {
    const ancient = await upload();
    await ageBy(ancient.id, 3650 * day);
    const never = { ...server.deps, config: { ...server.deps.config, orphanPackages: { graceMs: 0 } } };
    expect(await collectOrphanPackages(never, Date.now() + 3650 * day)).toEqual({ collected: 0, kept: 0 });
    expect(await exists(ancient.id)).toBe(true);
  });
});
