import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { branchVersions } from '../../src/server/db/schema/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createApiToken, makePublic, makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailureStatus as failure } from '../support/trpc-failure.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await registerUser(server, 'admin');
});
afterAll(() => server.stop());

const base = (team: Team) => `/api/projects/${team.project.id}`;

async function post<T = { id: string; title: string }>(path: string, user: TestUser, json?: unknown): Promise<T> {
  const response = await server.fetch(path, { method: 'POST', token: user.token, json });
  if (response.status !== 200) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<T>;
}

const newBranch = (team: Team, title: string) => post(`${base(team)}/branches`, team.developer, { title });
const newVersion = (team: Team, title: string, description = '') => post(`${base(team)}/versions`, team.developer, { title, description });
const publish = (team: Team, branch: string, version: string, user = team.developer) =>
  server.fetch(`${base(team)}/branches/${branch}/versions/${version}`, { method: 'POST', token: user.token });

describe('versions', () => {
  test('a developer creates a version; titles are unique; packages must exist', async () => {
    const team = await makeTeam(server);
    const response = await server.fetch(`${base(team)}/versions`, { method: 'POST', token: team.developer.token, json: { title: ' 1.0.0 ', description: 'First' } });
    expect(response.status).toBe(200);
    const version = await response.json();
    expect(version).toEqual({ id: expect.stringMatching(/^[a-z0-9]{20}$/), title: '1.0.0', description: 'First', created: expect.any(String) });
    const again = await server.fetch(`${base(team)}/versions`, { method: 'POST', token: team.admin.token, json: { title: '1.0.0' } });
    expect(again.status).toBe(409);
    expect((await again.json()).code).toBe('name_conflict');
    const withPackage = await server.fetch(`${base(team)}/versions`, { method: 'POST', token: team.developer.token, json: { title: '2', packages: ['nope'] } });
    expect(withPackage.status).toBe(404);
    expect(await withPackage.json()).toEqual({ code: 'not_found', message: 'package not found' });
    const twice = await server.fetch(`${base(team)}/versions`, { method: 'POST', token: team.developer.token, json: { title: '3', packages: ['a', 'a'] } });
    expect(twice.status).toBe(400);
    expect((await server.fetch(`${base(team)}/versions`, { method: 'POST', token: team.tester.token, json: { title: '4' } })).status).toBe(403);
    expect((await server.fetch(`${base(team)}/versions`, { method: 'POST', token: team.outsider.token, json: { title: '4' } })).status).toBe(404);
  });

  test.each([
    [{}, 'title'],
    [{ title: '' }, 'title'],
    [{ title: '1', description: 5 }, 'description'],
    [{ title: '1', packages: 'a' }, 'packages'],
  ])('POST refuses %j', async (body, field) => {
    const team = await makeTeam(server);
    const response = await server.fetch(`${base(team)}/versions`, { method: 'POST', token: team.owner.token, json: body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message: `Invalid \`${field}\`` });
  });

  test('get, patch, list newest first', async () => {
    const team = await makeTeam(server);
    const first = await newVersion(team, '1.0.0');
    const second = await newVersion(team, '1.0.1');
    const list = await (await server.fetch(`${base(team)}/versions`, { token: team.tester.token })).json();
    expect(list.map((item: { id: string }) => item.id)).toEqual([second.id, first.id]);
    expect((await (await server.fetch(`${base(team)}/versions/${first.id}`, { token: team.tester.token })).json()).title).toBe('1.0.0');
    const patched = await server.fetch(`${base(team)}/versions/${first.id}`, { method: 'PATCH', token: team.developer.token, json: { description: 'Notes' } });
    expect(await patched.json()).toMatchObject({ title: '1.0.0', description: 'Notes' });
    expect((await server.fetch(`${base(team)}/versions/${first.id}`, { method: 'PATCH', token: team.developer.token, json: { title: '1.0.1' } })).status).toBe(409);
    expect((await server.fetch(`${base(team)}/versions/${first.id}`, { method: 'PATCH', token: team.tester.token, json: { title: 'x' } })).status).toBe(403);
    expect((await server.fetch(`${base(team)}/versions/${first.id}`, { method: 'PATCH', token: team.owner.token, json: {} })).status).toBe(400);
    expect((await server.fetch(`${base(team)}/versions/unknown`, { token: team.owner.token })).status).toBe(404);
  });

  test('non-members see only versions published to a public branch of a public project', async () => {
    const team = await makeTeam(server);
    const hidden = await newVersion(team, 'hidden');
    const shown = await newVersion(team, 'shown');
    const privateBranch = await newBranch(team, 'internal');
    const publicBranch = await newBranch(team, 'stable');
    await server.fetch(`${base(team)}/branches/${publicBranch.id}`, { method: 'PATCH', token: team.admin.token, json: { isPublic: true } });
    expect((await publish(team, privateBranch.id, hidden.id)).status).toBe(200);
    expect((await publish(team, publicBranch.id, shown.id)).status).toBe(200);
    expect((await server.fetch(`${base(team)}/versions`)).status).toBe(404);
    await makePublic(server, team.project, team.owner);
    for (const token of [undefined, team.outsider.token]) {
      const list = await (await server.fetch(`${base(team)}/versions`, { token })).json();
      expect(list.map((item: { title: string }) => item.title)).toEqual(['shown']);
      const hiddenResponse = await server.fetch(`${base(team)}/versions/${hidden.id}`, { token });
      expect(hiddenResponse.status).toBe(404);
      expect(await hiddenResponse.json()).toEqual({ code: 'not_found', message: 'version not found' });
      const where = await (await server.fetch(`${base(team)}/versions/${shown.id}/branches`, { token })).json();
      expect(where).toEqual([{ branchId: publicBranch.id, branchTitle: 'stable', isCurrent: true, published: expect.any(String) }]);
      expect((await server.fetch(`${base(team)}/branches/${privateBranch.id}/versions`, { token })).status).toBe(404);
    }
  });

  test('delete: deleteVersion, refused while current on a branch', async () => {
    const team = await makeTeam(server);
    const branch = await newBranch(team, 'main');
    const first = await newVersion(team, '1');
    const second = await newVersion(team, '2');
    await publish(team, branch.id, first.id);
    expect((await server.fetch(`${base(team)}/versions/${first.id}`, { method: 'DELETE', token: team.developer.token })).status).toBe(403);
    const refused = await server.fetch(`${base(team)}/versions/${first.id}`, { method: 'DELETE', token: team.admin.token });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({ code: 'not_empty', message: 'The version is current on: main', details: { branches: [{ id: branch.id, title: 'main' }] } });
    await publish(team, branch.id, second.id);
    const token = await createApiToken(server, team.admin);
    expect((await server.fetch(`${base(team)}/versions/${first.id}`, { method: 'DELETE', token })).status).toBe(200);
    expect((await server.fetch(`${base(team)}/versions/${first.id}`, { token: team.admin.token })).status).toBe(404);
    const history = await (await server.fetch(`${base(team)}/branches/${branch.id}/versions`, { token: team.admin.token })).json();
    expect(history.map((item: { title: string }) => item.title)).toEqual(['2']);
  });
});

describe('publishing', () => {
  test('history newest first with the current one flagged; republishing the current is refused', async () => {
    const team = await makeTeam(server);
    const branch = await newBranch(team, 'main');
    const [a, b] = [await newVersion(team, '1.0.0'), await newVersion(team, '1.0.1')];
    const published = await publish(team, branch.id, a.id);
    expect(published.status).toBe(200);
    expect(await published.json()).toMatchObject({ id: a.id, title: '1.0.0', isCurrent: true, published: expect.any(String) });
    const same = await publish(team, branch.id, a.id);
    expect(same.status).toBe(400);
    expect(await same.json()).toEqual({ code: 'bad_param', message: 'Invalid `version`: it already is the current version of this branch' });
    expect((await publish(team, branch.id, b.id)).status).toBe(200);
    expect((await publish(team, branch.id, a.id)).status).toBe(200); // an older version may be republished
    const history = await (await server.fetch(`${base(team)}/branches/${branch.id}/versions`, { token: team.tester.token })).json();
    expect(history.map((item: { title: string; isCurrent: boolean }) => [item.title, item.isCurrent])).toEqual([
      ['1.0.0', true],
      ['1.0.1', false],
      ['1.0.0', false],
    ]);
    const page = await (await server.fetch(`${base(team)}/branches/${branch.id}/versions?count=1&before=${encodeURIComponent(history[0].published)}`, { token: team.tester.token })).json();
    expect(page.map((item: { title: string }) => item.title)).toEqual(['1.0.1']);
    const [listed] = await (await server.fetch(`${base(team)}/branches`, { token: team.tester.token })).json();
    expect(listed.currentVersion).toMatchObject({ version: a.id, title: '1.0.0' });
    const where = await (await server.fetch(`${base(team)}/versions/${a.id}/branches?count=5`, { token: team.tester.token })).json();
    expect(where.map((item: { isCurrent: boolean }) => item.isCurrent)).toEqual([true, false]);
  });

  test('testers may not publish; bad paging is a bad parameter', async () => {
    const team = await makeTeam(server);
    const branch = await newBranch(team, 'main');
    const version = await newVersion(team, '1');
    expect((await publish(team, branch.id, version.id, team.tester)).status).toBe(403);
    const response = await server.fetch(`${base(team)}/branches/${branch.id}/versions?count=0`, { token: team.tester.token });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message: 'Invalid `count`' });
    const before = await server.fetch(`${base(team)}/branches/${branch.id}/versions?before=yesterday`, { token: team.tester.token });
    expect(await before.json()).toEqual({ code: 'bad_param', message: 'Invalid `before`' });
  });

  test('concurrent publishes to one branch leave one consistent current version', async () => {
    const team = await makeTeam(server);
    const branch = await newBranch(team, 'main');
    const candidates = await Promise.all(['a', 'b', 'c', 'd'].map((title) => newVersion(team, title)));
    const statuses = await Promise.all(candidates.map(async (version) => (await publish(team, branch.id, version.id)).status));
    expect(statuses).toEqual([200, 200, 200, 200]);
    const history = await (await server.fetch(`${base(team)}/branches/${branch.id}/versions`, { token: team.tester.token })).json();
    expect(history).toHaveLength(4);
    expect(history.filter((item: { isCurrent: boolean }) => item.isCurrent)).toHaveLength(1);
    const [listed] = await (await server.fetch(`${base(team)}/branches`, { token: team.tester.token })).json();
    expect(listed.currentVersion.version).toBe(history[0].id);
    const times = history.map((item: { published: string }) => item.published);
    expect(new Set(times).size).toBe(4);
    const [rows] = await server.deps.db.select({ count: sql<number>`count(*)::int` }).from(branchVersions).where(eq(branchVersions.branchId, branch.id));
    expect(rows!.count).toBe(4);
  });
});

describe('versions over tRPC', () => {
  test('create, publish, history, patch, delete', async () => {
    const team = await makeTeam(server);
    const developer = server.trpc(team.developer.token);
    const branch = await developer.projects.branches.create.mutate({ project: team.project.id, title: 'main' });
    const version = await developer.projects.versions.create.mutate({ project: team.project.id, title: '1.0.0' });
    expect((await developer.projects.versions.publish.mutate({ project: team.project.id, branch: branch.id, version: version.id })).isCurrent).toBe(true);
    expect((await developer.projects.versions.history.query({ project: team.project.id, branch: branch.id })).map((item) => item.id)).toEqual([version.id]);
    expect((await developer.projects.versions.branches.query({ project: team.project.id, version: version.id }))[0]?.branchId).toBe(branch.id);
    expect((await developer.projects.versions.patch.mutate({ project: team.project.id, version: version.id, title: '1.0.1' })).title).toBe('1.0.1');
    expect((await developer.projects.versions.get.query({ project: team.project.id, version: version.id })).title).toBe('1.0.1');
    expect((await developer.projects.versions.list.query({ project: team.project.id })).length).toBe(1);
    expect(await failure(developer.projects.versions.delete.mutate({ project: team.project.id, version: version.id }))).toEqual({
      code: 'insufficient_privileges',
      httpStatus: 403,
    });
    expect(await failure(server.trpc(team.admin.token).projects.versions.delete.mutate({ project: team.project.id, version: version.id }))).toEqual({
      code: 'not_empty',
      httpStatus: 409,
    });
  });
});
