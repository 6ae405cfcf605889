import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { addMember, createApiToken, createProject, makePublic, type TestProject, makeTeam } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailureStatus as failure } from '../support/trpc-failure.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await registerUser(server, 'admin');
});
afterAll(() => server.stop());

/** Owners are named owner… so the sorting tests know where the owner's name falls. */
const newTeam = () => makeTeam(server, `owner${Math.random().toString(36).slice(2, 8)}`);

const usersPath = (project: TestProject) => `/api/projects/${project.id}/users`;

describe('GET /api/projects/{project}/users', () => {
  test('owner first, then role rank, then name by locale collator', async () => {
    const owner = await registerUser(server, `zz-owner-${Math.random().toString(36).slice(2, 6)}`);
    const project = await createProject(server, owner);
    const names = ['émile', 'Bob', 'alice', 'Zed', 'carl'];
    const made: Record<string, TestUser> = {};
    for (const name of names) made[name] = await registerUser(server, `${name.replace('é', 'e')}${Math.random().toString(36).slice(2, 6)}`);
    // Titles carry the accents and cases that the collator must order.
    for (const name of names) await server.trpc(made[name]!.token).users.rename.mutate({ title: name });
    await addMember(server, project, made['Zed']!, 'admin');
    await addMember(server, project, made['alice']!, 'admin');
    await addMember(server, project, made['émile']!, 'developer');
    await addMember(server, project, made['Bob']!, 'tester');
    await addMember(server, project, made['carl']!, 'developer');
    const response = await server.fetch(usersPath(project), { token: owner.token });
    expect(response.status).toBe(200);
    const list = await response.json();
    expect(list.map((item: { user: { title: string }; role: string; isOwner: boolean }) => [item.user.title, item.role, item.isOwner])).toEqual([
      [owner.name, 'admin', true],
      ['alice', 'admin', false],
      ['Zed', 'admin', false],
      ['carl', 'developer', false],
      ['émile', 'developer', false],
      ['Bob', 'tester', false],
    ]);
    expect(list[0]).toEqual({ user: { id: owner.id, title: owner.name }, role: 'admin', isOwner: true, pending: false });
  });

  test('members only: outsiders of a public project are refused, of a private one not_found', async () => {
    const team = await newTeam();
    expect((await server.fetch(usersPath(team.project), { token: team.tester.token })).status).toBe(200);
    expect((await server.fetch(usersPath(team.project), { token: team.outsider.token })).status).toBe(404);
    expect((await server.fetch(usersPath(team.project))).status).toBe(404);
    await makePublic(server, team.project, team.owner);
    const outsider = await server.fetch(usersPath(team.project), { token: team.outsider.token });
    expect(outsider.status).toBe(403);
    expect((await outsider.json()).code).toBe('insufficient_privileges');
    expect((await server.fetch(usersPath(team.project))).status).toBe(401);
  });
});

describe('PUT /api/projects/{project}/users', () => {
  test('an admin changes a role and removes a member (missing role)', async () => {
    const team = await newTeam();
    const changed = await server.fetch(usersPath(team.project), { method: 'PUT', token: team.admin.token, json: { user: team.tester.id, role: 'developer' } });
    expect(changed.status).toBe(200);
    const list = await changed.json();
    expect(list.find((item: { user: { id: string } }) => item.user.id === team.tester.id).role).toBe('developer');
    expect((await (await server.fetch(`/api/projects/${team.project.id}`, { token: team.tester.token })).json()).userRole).toBe('developer');
    const removed = await server.fetch(usersPath(team.project), { method: 'PUT', token: team.admin.token, json: { user: team.tester.id } });
    expect((await removed.json()).map((item: { user: { id: string } }) => item.user.id)).not.toContain(team.tester.id);
    expect((await server.fetch(`/api/projects/${team.project.id}`, { token: team.tester.token })).status).toBe(404);
  });

  test('an admin approves a pending member by setting a role', async () => {
    const team = await newTeam();
    const newcomer = await registerUser(server);
    await addMember(server, team.project, newcomer, 'tester', { pending: true });
    const before = await (await server.fetch(usersPath(team.project), { token: team.admin.token })).json();
    expect(before.find((item: { user: { id: string } }) => item.user.id === newcomer.id)).toMatchObject({ pending: true });
    await server.fetch(usersPath(team.project), { method: 'PUT', token: team.admin.token, json: { user: newcomer.id, role: 'tester' } });
    expect((await (await server.fetch(`/api/projects/${team.project.id}`, { token: newcomer.token })).json()).userRole).toBe('tester');
  });

  test('nobody changes or removes the owner, not even the owner', async () => {
    const team = await newTeam();
    for (const actor of [team.admin, team.owner]) {
      for (const body of [{ user: team.owner.id, role: 'tester' }, { user: team.owner.id }]) {
        const response = await server.fetch(usersPath(team.project), { method: 'PUT', token: actor.token, json: body });
        expect(response.status).toBe(403);
        expect((await response.json()).code).toBe('insufficient_privileges');
      }
    }
  });

  test('developers and testers lack setUser', async () => {
    const team = await newTeam();
    for (const actor of [team.developer, team.tester]) {
      const response = await server.fetch(usersPath(team.project), { method: 'PUT', token: actor.token, json: { user: team.tester.id, role: 'admin' } });
      expect(response.status).toBe(403);
    }
  });

  test('a user who is not a member is not_found (members join through invites)', async () => {
    const team = await newTeam();
    const response = await server.fetch(usersPath(team.project), { method: 'PUT', token: team.admin.token, json: { user: team.outsider.id, role: 'tester' } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: 'not_found', message: 'user not found' });
  });

  test.each([
    [{}, 'user'],
    [{ user: '' }, 'user'],
    [{ user: 'x', role: 'owner' }, 'role'],
    [{ user: 'x', role: 'starred' }, 'role'],
    [{ role: 'tester' }, 'user'],
  ])('refuses %j', async (body, field) => {
    const team = await newTeam();
    const response = await server.fetch(usersPath(team.project), { method: 'PUT', token: team.owner.token, json: body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message: `Invalid \`${field}\`` });
  });

  test('an API token of an admin acts as the admin', async () => {
    const team = await newTeam();
    const token = await createApiToken(server, team.admin);
    const response = await server.fetch(usersPath(team.project), { method: 'PUT', token, json: { user: team.developer.id, role: 'admin' } });
    expect(response.status).toBe(200);
  });
});

describe('POST /api/projects/{project}/users/leave', () => {
  test('a member leaves; the owner cannot', async () => {
    const team = await newTeam();
    const left = await server.fetch(`${usersPath(team.project)}/leave`, { method: 'POST', token: team.developer.token });
    expect(left.status).toBe(200);
    expect(await left.json()).toEqual({ ok: true });
    expect((await server.fetch(`/api/projects/${team.project.id}`, { token: team.developer.token })).status).toBe(404);
    const owner = await server.fetch(`${usersPath(team.project)}/leave`, { method: 'POST', token: team.owner.token });
    expect(owner.status).toBe(403);
    expect(await owner.json()).toEqual({ code: 'insufficient_privileges', message: 'The owner cannot leave the project; delete it instead' });
  });

  test('outsiders: not_found on a private project, refused on a public one; visitors must sign in', async () => {
    const team = await newTeam();
    expect((await server.fetch(`${usersPath(team.project)}/leave`, { method: 'POST', token: team.outsider.token })).status).toBe(404);
    await makePublic(server, team.project, team.owner);
    expect((await server.fetch(`${usersPath(team.project)}/leave`, { method: 'POST', token: team.outsider.token })).status).toBe(403);
    expect((await server.fetch(`${usersPath(team.project)}/leave`, { method: 'POST' })).status).toBe(401);
  });
});

describe('members over tRPC', () => {
  test('list, set, leave', async () => {
    const team = await newTeam();
    const admin = server.trpc(team.admin.token);
    expect((await admin.projects.users.list.query({ project: team.project.id })).map((item) => item.role)).toEqual(['admin', 'admin', 'developer', 'tester']);
    const list = await admin.projects.users.set.mutate({ project: team.project.id, user: team.tester.id, role: 'admin' });
    expect(list.find((item) => item.user.id === team.tester.id)?.role).toBe('admin');
    expect(await server.trpc(team.tester.token).projects.users.leave.mutate({ project: team.project.id })).toEqual({ ok: true });
    expect(await failure(server.trpc(team.owner.token).projects.users.leave.mutate({ project: team.project.id }))).toEqual({
      code: 'insufficient_privileges',
      httpStatus: 403,
    });
    expect(await failure(server.trpc(team.developer.token).projects.users.set.mutate({ project: team.project.id, user: team.owner.id }))).toEqual({
      code: 'insufficient_privileges',
      httpStatus: 403,
    });
  });
});
