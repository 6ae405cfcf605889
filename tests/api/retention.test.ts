import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { branchVersions, jobs } from '../../src/server/db/schema/index.ts';
import { applyRetention } from '../../src/server/domains/projects/retention.service.ts';
import { retentionSweepJob } from '../../src/server/domains/projects/retention.job.ts';
import { forgetFinishedJobsJob } from '../../src/server/jobs/forget-finished-jobs.job.ts';
import type { Job } from '../../src/server/jobs/queue.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createProject, makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailureStatus } from '../support/trpc-failure.ts';
import { directJobContext } from '../support/job-context.ts';

const day = 86_400;

/**
 * Two servers: `quiet` runs no job worker (JOB_WORKERS=0), so the tests call applyRetention themselves
 * with a chosen `now` and nothing runs behind their back; `busy` has instance default quotas from the
 * environment and a worker polling every 20 ms, for inheritance and for the job a publish queues.
 */
let quiet: TestServer;
let busy: TestServer;
let busyAdmin: TestUser;
beforeAll(async () => {
  [quiet, busy] = await Promise.all([
    startTestServer({ JOB_WORKERS: '0' }),
    startTestServer({
      JOB_POLL_MS: '20',
      QUOTA_BRANCH_VERSIONS_COUNT: '3',
      QUOTA_BRANCH_VERSIONS_DAYS: '10',
      QUOTA_BRANCH_VERSIONS_NON_CURRENT_DAYS: '5',
    }),
  ]);
  await registerUser(quiet, 'admin');
  busyAdmin = await registerUser(busy, 'admin'); // the first user is the instance administrator
});
afterAll(async () => {
  await Promise.all([quiet?.stop(), busy?.stop()]);
});

async function call(server: TestServer, token: string | undefined, method: string, path: string, json?: unknown) {
  const response = await server.fetch(path, { method, token, json });
  return { status: response.status, body: await response.json() };
}

async function ok<T = any>(server: TestServer, token: string, method: string, path: string, json?: unknown): Promise<T> {
  const { status, body } = await call(server, token, method, path, json);
  if (status !== 200) throw new Error(`${method} ${path}: ${status} ${JSON.stringify(body)}`);
  return body;
}

const projectPath = (team: Team) => `/api/projects/${team.project.id}`;

async function createBranch(server: TestServer, team: Team, title: string): Promise<string> {
  return (await ok(server, team.developer.token, 'POST', `${projectPath(team)}/branches`, { title })).id;
}

async function createVersion(server: TestServer, team: Team, title: string): Promise<string> {
  return (await ok(server, team.developer.token, 'POST', `${projectPath(team)}/versions`, { title })).id;
}

async function publish(server: TestServer, team: Team, branchId: string, versionId: string): Promise<void> {
  await ok(server, team.developer.token, 'POST', `${projectPath(team)}/branches/${branchId}/versions/${versionId}`);
}

async function setRetention(server: TestServer, team: Team, branchId: string, retention: object) {
  return ok(server, team.admin.token, 'PATCH', `${projectPath(team)}/branches/${branchId}`, { retention });
}

/** Publishes new versions in order through the API, then dates each publish `days` before `now`. */
async function publishAged(server: TestServer, team: Team, branchId: string, now: Date, items: [title: string, days: number][]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const [title, days] of items) {
    ids[title] ??= await createVersion(server, team, title);
    await publish(server, team, branchId, ids[title]!);
    await age(server, branchId, ids[title]!, new Date(now.getTime() - days * day * 1000));
  }
  return ids;
}

/** Simulates age: the publish of the version on the branch happened at `at`. */
async function age(server: TestServer, branchId: string, versionId: string, at: Date): Promise<void> {
  await server.deps.db
    .update(branchVersions)
    .set({ publishedAt: at })
    .where(and(eq(branchVersions.branchId, branchId), eq(branchVersions.versionId, versionId)));
}

async function historyTitles(server: TestServer, team: Team, branchId: string): Promise<string[]> {
  const items = await ok<{ title: string }[]>(server, team.tester.token, 'GET', `${projectPath(team)}/branches/${branchId}/versions?count=100`);
  return items.map((item) => item.title);
}

async function versionExists(server: TestServer, team: Team, versionId: string): Promise<boolean> {
  const { status } = await call(server, team.tester.token, 'GET', `${projectPath(team)}/versions/${versionId}`);
  if (status !== 200 && status !== 404) throw new Error(`GET version: ${status}`);
  return status === 200;
}

describe('retention rules (applyRetention)', () => {
  test('count: a branch keeps its newest quotaCount versions, the current one included', async () => {
    const team = await makeTeam(quiet);
    const main = await createBranch(quiet, team, 'main');
    await setRetention(quiet, team, main, { quotaCount: 3 });
    const now = new Date();
    const ids = await publishAged(quiet, team, main, now, [['1', 5], ['2', 4], ['3', 3], ['4', 2], ['5', 1]]);
    const result = await applyRetention(quiet.deps, team.project.id, now);
    expect(result).toEqual({ branchVersionsRemoved: 2, versionsRemoved: [ids['1']!, ids['2']!].sort() });
    expect(await historyTitles(quiet, team, main)).toEqual(['5', '4', '3']);
    expect(await versionExists(quiet, team, ids['1']!)).toBe(false);
    expect(await versionExists(quiet, team, ids['2']!)).toBe(false);
    expect(await versionExists(quiet, team, ids['3']!)).toBe(true);
    // Idempotent: a second run finds nothing more.
    expect(await applyRetention(quiet.deps, team.project.id, now)).toEqual({ branchVersionsRemoved: 0, versionsRemoved: [] });
  });

  test('a version published again counts once, ranked by its latest publish', async () => {
    const team = await makeTeam(quiet);
    const main = await createBranch(quiet, team, 'main');
    await setRetention(quiet, team, main, { quotaCount: 2 });
    const now = new Date();
    const a = await createVersion(quiet, team, 'a');
    const b = await createVersion(quiet, team, 'b');
    const c = await createVersion(quiet, team, 'c');
    const publishes: [string, number][] = [[a, 5], [b, 4], [a, 3], [c, 2]];
    for (const [version, days] of publishes) {
      await publish(quiet, team, main, version);
      const [row] = await quiet.deps.db
        .select({ id: branchVersions.id })
        .from(branchVersions)
        .where(and(eq(branchVersions.branchId, main), eq(branchVersions.versionId, version)))
        .orderBy(branchVersions.publishedAt)
        .limit(1)
        .offset(version === a && days === 3 ? 1 : 0);
      await quiet.deps.db.update(branchVersions).set({ publishedAt: new Date(now.getTime() - days * day * 1000) }).where(eq(branchVersions.id, row!.id));
    }
    // Ranked c (current), a (latest publish 3 days ago), b: b is third and goes; both rows of a stay.
    const result = await applyRetention(quiet.deps, team.project.id, now);
    expect(result).toEqual({ branchVersionsRemoved: 1, versionsRemoved: [b] });
    expect(await historyTitles(quiet, team, main)).toEqual(['c', 'a', 'a']);
  });

  test('time: previous versions go once their latest publish is older than quotaTime', async () => {
    const team = await makeTeam(quiet);
    const main = await createBranch(quiet, team, 'main');
    await setRetention(quiet, team, main, { quotaTime: 3 * day });
    const now = new Date();
    const ids = await publishAged(quiet, team, main, now, [['old', 10], ['older-ish', 6], ['recent', 2.5], ['current', 1]]);
    const result = await applyRetention(quiet.deps, team.project.id, now);
    expect(result.versionsRemoved).toEqual([ids['old']!, ids['older-ish']!].sort());
    expect(await historyTitles(quiet, team, main)).toEqual(['current', 'recent']);
  });

  test('non-current time counts from when the version stopped being current, not from its publish', async () => {
    const team = await makeTeam(quiet);
    const main = await createBranch(quiet, team, 'main');
    await setRetention(quiet, team, main, { quotaNonCurrentTime: 2 * day });
    const now = new Date();
    // a: replaced 29 days ago → goes. b: published 29 days ago but current until 1.5 days ago → stays.
    const ids = await publishAged(quiet, team, main, now, [['a', 30], ['b', 29], ['c', 1.5], ['d', 0.5]]);
    const result = await applyRetention(quiet.deps, team.project.id, now);
    expect(result).toEqual({ branchVersionsRemoved: 1, versionsRemoved: [ids['a']!] });
    expect(await historyTitles(quiet, team, main)).toEqual(['d', 'c', 'b']);
  });

  test('the current version is never removed, however old, even when it is current on another branch only', async () => {
    const team = await makeTeam(quiet);
    const main = await createBranch(quiet, team, 'main');
    const other = await createBranch(quiet, team, 'other');
    const lonely = await createBranch(quiet, team, 'lonely');
    const strict = { quotaCount: 1, quotaTime: 1, quotaNonCurrentTime: 1 };
    for (const branch of [main, other, lonely]) await setRetention(quiet, team, branch, strict);
    const now = new Date();
    const v = await createVersion(quiet, team, 'v');
    const w = await createVersion(quiet, team, 'w');
    const solo = await createVersion(quiet, team, 'solo');
    // v: current on other (published 500 days ago); on main it was replaced by w long ago.
    await publish(quiet, team, other, v);
    await age(quiet, other, v, new Date(now.getTime() - 500 * day * 1000));
    await publish(quiet, team, main, v);
    await age(quiet, main, v, new Date(now.getTime() - 400 * day * 1000));
    await publish(quiet, team, main, w);
    await age(quiet, main, w, new Date(now.getTime() - 300 * day * 1000));
    await publish(quiet, team, lonely, solo);
    await age(quiet, lonely, solo, new Date(now.getTime() - 400 * day * 1000));

    const result = await applyRetention(quiet.deps, team.project.id, now);
    expect(result).toEqual({ branchVersionsRemoved: 1, versionsRemoved: [] });
    expect(await historyTitles(quiet, team, main)).toEqual(['w']);
    expect(await historyTitles(quiet, team, other)).toEqual(['v']);
    expect(await historyTitles(quiet, team, lonely)).toEqual(['solo']);
    for (const version of [v, w, solo]) expect(await versionExists(quiet, team, version)).toBe(true);
  });

  test('a version another branch still keeps stays; a never-published version stays', async () => {
    const team = await makeTeam(quiet);
    const main = await createBranch(quiet, team, 'main');
    const beta = await createBranch(quiet, team, 'beta'); // no override: instance defaults (20 versions, 90 days)
    await setRetention(quiet, team, main, { quotaCount: 1 });
    const now = new Date();
    const draft = await createVersion(quiet, team, 'draft');
    const ids = await publishAged(quiet, team, main, now, [['gone', 4], ['shared', 3], ['newer', 2]]);
    const betaOnly = await createVersion(quiet, team, 'beta-only');
    await publish(quiet, team, beta, ids['shared']!);
    await age(quiet, beta, ids['shared']!, new Date(now.getTime() - 10 * day * 1000));
    await publish(quiet, team, beta, betaOnly);
    await age(quiet, beta, betaOnly, new Date(now.getTime() - 9 * day * 1000));
    // main keeps only 'newer'; 'shared' stays in beta's history, so the version stays; 'gone' is nowhere.
    const result = await applyRetention(quiet.deps, team.project.id, now);
    expect(result).toEqual({ branchVersionsRemoved: 2, versionsRemoved: [ids['gone']!] });
    expect(await historyTitles(quiet, team, main)).toEqual(['newer']);
    expect(await historyTitles(quiet, team, beta)).toEqual(['beta-only', 'shared']);
    expect(await versionExists(quiet, team, ids['shared']!)).toBe(true);
    expect(await versionExists(quiet, team, draft)).toBe(true);
    expect(await versionExists(quiet, team, ids['gone']!)).toBe(false);
  });

  test('a project without quotas or branches, and an unknown project, are left as they are', async () => {
    const team = await makeTeam(quiet);
    expect(await applyRetention(quiet.deps, team.project.id)).toEqual({ branchVersionsRemoved: 0, versionsRemoved: [] });
    expect(await applyRetention(quiet.deps, 'nosuchproject')).toEqual({ branchVersionsRemoved: 0, versionsRemoved: [] });
  });
});

describe('PATCH branch retention', () => {
  test('REST: admins and the owner set it; a left-out field stays, null inherits; a retention run is queued', async () => {
    const team = await makeTeam(quiet);
    const main = await createBranch(quiet, team, 'main');
    const path = `${projectPath(team)}/branches/${main}`;
    const set = await ok(quiet, team.admin.token, 'PATCH', path, { retention: { quotaCount: 5, quotaTime: day } });
    expect(set).toMatchObject({
      id: main,
      title: 'main',
      retention: { quotaCount: 5, quotaTime: day, quotaNonCurrentTime: null },
      retentionEffective: { quotaCount: 5, quotaTime: day, quotaNonCurrentTime: 90 * day },
    });
    const inherited = await ok(quiet, team.owner.token, 'PATCH', path, { retention: { quotaCount: null } });
    expect(inherited.retention).toEqual({ quotaCount: null, quotaTime: day, quotaNonCurrentTime: null });
    expect(inherited.retentionEffective).toEqual({ quotaCount: 20, quotaTime: day, quotaNonCurrentTime: 90 * day });
    const [listed] = await ok(quiet, team.tester.token, 'GET', `${projectPath(team)}/branches`);
    expect(listed.retention).toEqual(inherited.retention);
    const queued = await quiet.deps.db.select().from(jobs).where(and(eq(jobs.projectId, team.project.id), eq(jobs.status, 'queued')));
    expect(queued.map((job) => ({ kind: job.kind, dedupeKey: job.dedupeKey, payload: job.payload }))).toEqual([
      { kind: 'retention', dedupeKey: team.project.id, payload: { projectId: team.project.id } },
    ]);
  });

  test.each([
    { quotaCount: -1 },
    { quotaCount: 1.5 },
    { quotaTime: -1 },
    { quotaNonCurrentTime: -day },
    { quotaNonCurrentTime: 'x' },
    { quotaTime: 36_501 * day },
  ])('REST refuses retention %j', async (retention) => {
    const team = await makeTeam(quiet);
    const main = await createBranch(quiet, team, 'main');
    expect(await call(quiet, team.admin.token, 'PATCH', `${projectPath(team)}/branches/${main}`, { retention })).toEqual({
      status: 400,
      body: { code: 'bad_param', message: 'Invalid `retention`' },
    });
  });

  test('REST: developers and testers may not (deleteVersion); outsiders of a private project get not_found', async () => {
    const team = await makeTeam(quiet);
    const main = await createBranch(quiet, team, 'main');
    const path = `${projectPath(team)}/branches/${main}`;
    for (const user of [team.developer, team.tester]) {
      const refused = await call(quiet, user.token, 'PATCH', path, { retention: { quotaCount: 2 } });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('insufficient_privileges');
    }
    // A rename the developer may do does not carry a retention change through.
    expect((await call(quiet, team.developer.token, 'PATCH', path, { title: 'x', retention: { quotaCount: 2 } })).status).toBe(403);
    expect(await call(quiet, team.outsider.token, 'PATCH', path, { retention: { quotaCount: 2 } })).toEqual({
      status: 404,
      body: { code: 'not_found', message: 'project not found' },
    });
    const [branch] = await ok(quiet, team.owner.token, 'GET', `${projectPath(team)}/branches`);
    expect(branch).toMatchObject({ title: 'main', retention: { quotaCount: null } });
  });

  test('tRPC: the same rules', async () => {
    const team = await makeTeam(quiet);
    const main = await createBranch(quiet, team, 'main');
    const input = { project: team.project.id, branch: main };
    const patched = await quiet.trpc(team.admin.token).projects.branches.patch.mutate({ ...input, retention: { quotaNonCurrentTime: 3600 } });
    expect(patched.retention).toEqual({ quotaCount: null, quotaTime: null, quotaNonCurrentTime: 3600 });
    expect(patched.retentionEffective).toEqual({ quotaCount: 20, quotaTime: null, quotaNonCurrentTime: 3600 });
    expect(await trpcFailureStatus(quiet.trpc(team.developer.token).projects.branches.patch.mutate({ ...input, retention: { quotaCount: 2 } }))).toEqual({
      code: 'insufficient_privileges',
      httpStatus: 403,
    });
    expect(await trpcFailureStatus(quiet.trpc(team.outsider.token).projects.branches.patch.mutate({ ...input, retention: { quotaCount: 2 } }))).toEqual({
      code: 'not_found',
      httpStatus: 404,
    });
    // 0 is "no limit", even where the instance default has one.
    const unlimited = await quiet.trpc(team.admin.token).projects.branches.patch.mutate({ ...input, retention: { quotaCount: 0 } });
    expect(unlimited.retention.quotaCount).toBe(0);
    expect(unlimited.retentionEffective.quotaCount).toBeNull();
    expect(await trpcFailureStatus(quiet.trpc(team.admin.token).projects.branches.patch.mutate({ ...input, retention: { quotaCount: -1 } }))).toEqual({
      code: 'bad_param',
      httpStatus: 400,
    });
    const [listed] = await quiet.trpc(team.tester.token).projects.branches.list.query({ project: team.project.id });
    expect(listed!.retention.quotaNonCurrentTime).toBe(3600);
  });
});

describe('effective retention and the job', () => {
  test('inherits the instance defaults, then the project override, then the branch override', async () => {
    const team = await makeTeam(busy);
    const main = await createBranch(busy, team, 'main');
    const effective = async () => (await ok(busy, team.tester.token, 'GET', `${projectPath(team)}/branches`))[0].retentionEffective;
    expect(await effective()).toEqual({ quotaCount: 3, quotaTime: 10 * day, quotaNonCurrentTime: 5 * day });
    const admin = busy.trpc(busyAdmin.token).admin;
    // 0 at the project level means no limit.
    await admin.setProjectQuotas.mutate({ project: team.project.id, branchVersionsCount: 7, branchVersionsTime: 0 });
    expect(await effective()).toEqual({ quotaCount: 7, quotaTime: null, quotaNonCurrentTime: 5 * day });
    await setRetention(busy, team, main, { quotaTime: 3600, quotaCount: 2 });
    expect(await effective()).toEqual({ quotaCount: 2, quotaTime: 3600, quotaNonCurrentTime: 5 * day });
    await setRetention(busy, team, main, { quotaTime: null, quotaCount: null });
    await admin.setProjectQuotas.mutate({ project: team.project.id, branchVersionsCount: null, branchVersionsTime: null });
    expect(await effective()).toEqual({ quotaCount: 3, quotaTime: 10 * day, quotaNonCurrentTime: 5 * day });
  });

  test('a publish runs the retention job: the fourth version pushes the first out (instance default count 3)', async () => {
    const team = await makeTeam(busy);
    const main = await createBranch(busy, team, 'main');
    const ids: string[] = [];
    for (const title of ['1', '2', '3', '4']) {
      const id = await createVersion(busy, team, title);
      ids.push(id);
      await publish(busy, team, main, id);
    }
    // The run deletes in its own transaction, then records its output: wait for the record.
    const removedFirst = async () => {
      const runs = await busy.deps.db.select().from(jobs).where(and(eq(jobs.projectId, team.project.id), eq(jobs.kind, 'retention')));
      return runs.some((job) => job.status === 'succeeded' && (job.output as { versionsRemoved: string[] }).versionsRemoved.includes(ids[0]!));
    };
    const deadline = Date.now() + 15_000;
    while (!(await removedFirst()) && Date.now() < deadline) await Bun.sleep(20);
    expect(await removedFirst()).toBe(true);
    expect(await historyTitles(busy, team, main)).toEqual(['4', '3', '2']);
    expect(await versionExists(busy, team, ids[0]!)).toBe(false);
  });

  test('one hourly sweep is queued at start; a sweep queues one retention run per project with branches, and its successor', async () => {
    const sweeps = await busy.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'retention_sweep'), eq(jobs.status, 'queued')));
    expect(sweeps).toHaveLength(1);
    expect(sweeps[0]!.runAt.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);

    // On the quiet server (no worker) the handler runs here, twice, as two processes' sweeps might.
    const withBranches = await makeTeam(quiet);
    await createBranch(quiet, withBranches, 'main');
    const withoutBranches = { project: await createProject(quiet, withBranches.owner) };
    const job = { id: 'sweep', kind: 'retention_sweep', payload: {} } as Job;
    const context = directJobContext();
    // The hourly housekeeping is two jobs: the retention sweep and the queue forgetting finished jobs.
    const sweepHourly = async () => ({
      ...(await retentionSweepJob.execute(quiet.deps, job, context)),
      ...(await forgetFinishedJobsJob.execute(quiet.deps, { ...job, kind: forgetFinishedJobsJob.kind }, context)),
    });
    const first = await sweepHourly();
    await sweepHourly();
    expect(first.projects).toBeGreaterThanOrEqual(1);
    expect(first.jobsForgotten).toBe(0);
    const queued = await quiet.deps.db.select().from(jobs).where(eq(jobs.status, 'queued'));
    const retentionRuns = queued.filter((row) => row.kind === 'retention');
    expect(retentionRuns.filter((row) => row.projectId === withBranches.project.id)).toHaveLength(1);
    expect(retentionRuns.filter((row) => row.projectId === withoutBranches.project.id)).toHaveLength(0);
    expect(new Set(retentionRuns.map((row) => row.dedupeKey)).size).toBe(retentionRuns.length);
    expect(queued.filter((row) => row.kind === 'retention_sweep')).toHaveLength(1);
  });
});
