import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { newId } from '../../src/server/db/ids.ts';
import { branchVersions, versions } from '../../src/server/db/schema/index.ts';
import { registerUser } from '../support/accounts.ts';
import { createApiToken, makePublic, type TestProject, makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailureStatus as failure } from '../support/trpc-failure.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await registerUser(server, 'admin');
});
afterAll(() => server.stop());

const branchesPath = (project: TestProject) => `/api/projects/${project.id}/branches`;

async function createBranch(team: Team, title: string): Promise<{ id: string; title: string }> {
  const response = await server.fetch(branchesPath(team.project), { method: 'POST', token: team.developer.token, json: { title } });
  if (response.status !== 200) throw new Error(`create branch: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Publishing has its own increment; these rows stand in for it. */
async function publish(project: TestProject, branchId: string, title: string, publishedAt: Date): Promise<string> {
  const versionId = newId();
  await server.deps.db.insert(versions).values({ id: versionId, projectId: project.id, title });
  await server.deps.db.insert(branchVersions).values({ id: newId(), branchId, versionId, publishedAt });
  return versionId;
}

describe('POST /api/projects/{project}/branches', () => {
  test('a developer creates a private branch', async () => {
    const team = await makeTeam(server);
    const response = await server.fetch(branchesPath(team.project), { method: 'POST', token: team.developer.token, json: { title: ' main ' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{20}$/),
      title: 'main',
      isPublic: false,
      currentVersion: null,
      created: expect.any(String),
      // No override; the instance defaults (20 versions, 90 days after stopping being current).
      retention: { quotaCount: null, quotaTime: null, quotaNonCurrentTime: null },
      retentionEffective: { quotaCount: 20, quotaTime: null, quotaNonCurrentTime: 90 * 86_400 },
    });
  });

  test('titles are unique in a project', async () => {
    const team = await makeTeam(server);
    await createBranch(team, 'main');
    const response = await server.fetch(branchesPath(team.project), { method: 'POST', token: team.admin.token, json: { title: 'main' } });
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ code: 'name_conflict', message: 'A branch named main already exists' });
    const other = await makeTeam(server);
    expect((await createBranch(other, 'main')).title).toBe('main');
  });

  test('testers may not; outsiders of a private project get not_found; visitors of a public one 401', async () => {
    const team = await makeTeam(server);
    expect((await server.fetch(branchesPath(team.project), { method: 'POST', token: team.tester.token, json: { title: 'x' } })).status).toBe(403);
    expect((await server.fetch(branchesPath(team.project), { method: 'POST', token: team.outsider.token, json: { title: 'x' } })).status).toBe(404);
    await makePublic(server, team.project, team.owner);
    expect((await server.fetch(branchesPath(team.project), { method: 'POST', json: { title: 'x' } })).status).toBe(401);
    expect((await server.fetch(branchesPath(team.project), { method: 'POST', token: team.outsider.token, json: { title: 'x' } })).status).toBe(403);
  });

  test.each([{}, { title: '' }, { title: 'x'.repeat(65) }, { title: false }])('refuses %j, naming the field', async (body) => {
    const team = await makeTeam(server);
    const response = await server.fetch(branchesPath(team.project), { method: 'POST', token: team.owner.token, json: body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message: 'Invalid `title`' });
  });
});

describe('GET /api/projects/{project}/branches', () => {
  test('members see every branch by title; others only public ones of a public project', async () => {
    const team = await makeTeam(server);
    for (const title of ['beta', 'Alpha', 'éclair', 'main']) await createBranch(team, title);
    const list = await (await server.fetch(branchesPath(team.project), { token: team.tester.token })).json();
    expect(list.map((branch: { title: string }) => branch.title)).toEqual(['Alpha', 'beta', 'éclair', 'main']);
    const main = list.find((branch: { title: string }) => branch.title === 'main');
    await server.fetch(`${branchesPath(team.project)}/${main.id}`, { method: 'PATCH', token: team.admin.token, json: { isPublic: true } });
    // Public branch, private project: still nothing for outsiders (enabling a branch does not publish the project).
    expect((await server.fetch(branchesPath(team.project), { token: team.outsider.token })).status).toBe(404);
    await makePublic(server, team.project, team.owner);
    for (const token of [undefined, team.outsider.token]) {
      const seen = await (await server.fetch(branchesPath(team.project), { token })).json();
      expect(seen.map((branch: { title: string }) => branch.title)).toEqual(['main']);
    }
  });

  test('the current version is the latest publish', async () => {
    const team = await makeTeam(server);
    const branch = await createBranch(team, 'main');
    await publish(team.project, branch.id, '1.0.0', new Date('2026-01-01T00:00:00Z'));
    const latest = await publish(team.project, branch.id, '1.0.1', new Date('2026-02-01T00:00:00Z'));
    await publish(team.project, branch.id, '0.9.0', new Date('2025-12-01T00:00:00Z'));
    const [listed] = await (await server.fetch(branchesPath(team.project), { token: team.tester.token })).json();
    expect(listed.currentVersion).toEqual({ version: latest, title: '1.0.1', published: '2026-02-01T00:00:00.000Z' });
  });
});

describe('PATCH/DELETE /api/projects/{project}/branches/{branch}', () => {
  test('developers rename; the public toggle needs patchProject', async () => {
    const team = await makeTeam(server);
    const branch = await createBranch(team, 'main');
    const path = `${branchesPath(team.project)}/${branch.id}`;
    const renamed = await server.fetch(path, { method: 'PATCH', token: team.developer.token, json: { title: 'stable' } });
    expect(await renamed.json()).toMatchObject({ id: branch.id, title: 'stable', isPublic: false });
    expect((await server.fetch(path, { method: 'PATCH', token: team.developer.token, json: { isPublic: true } })).status).toBe(403);
    expect((await server.fetch(path, { method: 'PATCH', token: team.tester.token, json: { title: 'x' } })).status).toBe(403);
    const published = await server.fetch(path, { method: 'PATCH', token: team.admin.token, json: { isPublic: true } });
    expect(await published.json()).toMatchObject({ title: 'stable', isPublic: true });
  });

  test('renaming onto another branch is a name conflict; onto itself is fine', async () => {
    const team = await makeTeam(server);
    const main = await createBranch(team, 'main');
    await createBranch(team, 'beta');
    const path = `${branchesPath(team.project)}/${main.id}`;
    expect((await server.fetch(path, { method: 'PATCH', token: team.developer.token, json: { title: 'beta' } })).status).toBe(409);
    expect((await server.fetch(path, { method: 'PATCH', token: team.developer.token, json: { title: 'main' } })).status).toBe(200);
  });

  test('a private branch of a public project is not_found for outsiders and visitors', async () => {
    const team = await makeTeam(server);
    const branch = await createBranch(team, 'secret');
    await makePublic(server, team.project, team.owner);
    const path = `${branchesPath(team.project)}/${branch.id}`;
    for (const token of [undefined, team.outsider.token]) {
      for (const [method, json] of [['PATCH', { title: 'x' }], ['DELETE', undefined]] as const) {
        const response = await server.fetch(path, { method, token, json });
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({ code: 'not_found', message: 'branch not found' });
      }
    }
  });

  test('unknown branches and branches of another project are not_found', async () => {
    const team = await makeTeam(server);
    const other = await makeTeam(server);
    const foreign = await createBranch(other, 'main');
    for (const id of ['nothing', foreign.id]) {
      const response = await server.fetch(`${branchesPath(team.project)}/${id}`, { method: 'PATCH', token: team.owner.token, json: { title: 'x' } });
      expect(response.status).toBe(404);
    }
  });

  test.each([
    [{}, 'body'],
    [{ title: '' }, 'title'],
    [{ isPublic: 'no' }, 'isPublic'],
  ])('PATCH refuses %j', async (body, field) => {
    const team = await makeTeam(server);
    const branch = await createBranch(team, 'main');
    const response = await server.fetch(`${branchesPath(team.project)}/${branch.id}`, { method: 'PATCH', token: team.owner.token, json: body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message: `Invalid \`${field}\`` });
  });

  test('admins delete; the publish history goes, the versions stay', async () => {
    const team = await makeTeam(server);
    const branch = await createBranch(team, 'main');
    const versionId = await publish(team.project, branch.id, '1.0.0', new Date());
    const path = `${branchesPath(team.project)}/${branch.id}`;
    expect((await server.fetch(path, { method: 'DELETE', token: team.developer.token })).status).toBe(403);
    const token = await createApiToken(server, team.admin);
    const deleted = await server.fetch(path, { method: 'DELETE', token });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ ok: true });
    expect(await (await server.fetch(branchesPath(team.project), { token: team.admin.token })).json()).toEqual([]);
    const [history] = await server.deps.db.select({ count: sql<number>`count(*)::int` }).from(branchVersions).where(eq(branchVersions.versionId, versionId));
    expect(history!.count).toBe(0);
    expect(await server.deps.db.select({ id: versions.id }).from(versions).where(eq(versions.id, versionId))).toEqual([{ id: versionId }]);
    expect((await server.fetch(path, { method: 'DELETE', token: team.admin.token })).status).toBe(404);
  });
});

describe('branches over tRPC', () => {
  test('create, list, patch, delete', async () => {
    const team = await makeTeam(server);
    const developer = server.trpc(team.developer.token);
    const created = await developer.projects.branches.create.mutate({ project: team.project.id, title: 'main' });
    expect((await developer.projects.branches.list.query({ project: team.project.id })).map((branch) => branch.id)).toEqual([created.id]);
    expect((await developer.projects.branches.patch.mutate({ project: team.project.id, branch: created.id, title: 'stable' })).title).toBe('stable');
    expect(await failure(developer.projects.branches.delete.mutate({ project: team.project.id, branch: created.id }))).toEqual({
      code: 'insufficient_privileges',
      httpStatus: 403,
    });
    expect(await failure(developer.projects.branches.create.mutate({ project: team.project.id, title: 'stable' }))).toEqual({ code: 'name_conflict', httpStatus: 409 });
    const admin = server.trpc(team.admin.token);
    expect(await admin.projects.branches.delete.mutate({ project: team.project.id, branch: created.id })).toEqual({ ok: true });
  });
});
