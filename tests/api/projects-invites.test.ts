import { TRPCClientError } from '@trpc/client';
import type { AppRouter } from '../../src/server/trpc/router.ts';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { invites, projectUsers } from '../../src/server/db/schema/index.ts';
import { hashToken } from '../../src/server/crypto/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { addMember, createApiToken, createProject, makePublic, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailure as failure } from '../support/trpc-failure.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await registerUser(server, 'admin');
});
afterAll(() => server.stop());

const invitesPath = (project: TestProject) => `/api/projects/${project.id}/invites`;

async function createInvite(project: TestProject, user: TestUser, body: unknown = {}): Promise<{ id: string; token: string }> {
  const response = await server.fetch(invitesPath(project), { method: 'POST', token: user.token, json: body });
  if (response.status !== 200) throw new Error(`create invite: ${response.status} ${await response.text()}`);
  return response.json();
}

const join = (token: string, user?: TestUser) => server.fetch(`/api/invites?token=${encodeURIComponent(token)}`, { method: 'POST', token: user?.token });

describe('POST/GET/DELETE /api/projects/{project}/invites', () => {
  test('creates a link whose token is shown once and stored hashed', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner, 'Invited');
    const expires = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const response = await server.fetch(invitesPath(project), { method: 'POST', token: owner.token, json: { approved: false, expires, seats: 5 } });
    expect(response.status).toBe(200);
    const created = await response.json();
    expect(created).toEqual({
      id: expect.any(String),
      token: expect.stringMatching(/^ci_/),
      approved: false,
      expires,
      seats: 5,
      uses: 0,
      oneTime: false,
      created: expect.any(String),
      projectId: project.id,
      projectTitle: 'Invited',
    });
    const [row] = await server.deps.db.select().from(invites).where(eq(invites.id, created.id));
    expect(row!.tokenHash).toBe(hashToken(created.token));
    const list = await (await server.fetch(invitesPath(project), { token: owner.token })).json();
    expect(list).toEqual([{ id: created.id, approved: false, expires, seats: 5, uses: 0, oneTime: false, created: created.created }]);
    expect(JSON.stringify(list)).not.toContain(created.token);
  });

  test('defaults: approved, never expires, no seat limit', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    const created = await (await server.fetch(invitesPath(project), { method: 'POST', token: owner.token, json: {} })).json();
    expect(created).toMatchObject({ approved: true, expires: null, seats: null, oneTime: false });
  });

  test('a one-time invite is approved, 24 h, 1 seat', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    const created = await (await server.fetch(invitesPath(project), { method: 'POST', token: owner.token, json: { oneTime: true, approved: false } })).json();
    expect(created).toMatchObject({ approved: true, seats: 1, oneTime: true });
    const hours = (new Date(created.expires).getTime() - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
  });

  test.each([
    [{ seats: 0 }, 'Invalid `seats`'],
    [{ seats: 1.5 }, 'Invalid `seats`'],
    [{ approved: 'yes' }, 'Invalid `approved`'],
    [{ expires: 'soon' }, 'Invalid `expires`'],
    [{ expires: '2001-01-01T00:00:00Z' }, 'Invalid `expires`: it must be in the future'],
  ])('refuses %j', async (body, message) => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    const response = await server.fetch(invitesPath(project), { method: 'POST', token: owner.token, json: body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message });
  });

  test('needs createInvite: developers 403, outsiders of a private project 404, visitors of a public one 401', async () => {
    const owner = await registerUser(server);
    const developer = await registerUser(server);
    const outsider = await registerUser(server);
    const project = await createProject(server, owner);
    await addMember(server, project, developer, 'developer');
    const invite = await createInvite(project, owner);
    for (const [method, path] of [
      ['GET', invitesPath(project)],
      ['POST', invitesPath(project)],
      ['DELETE', `${invitesPath(project)}/${invite.id}`],
    ] as const) {
      const json = method === 'POST' ? {} : undefined;
      expect((await server.fetch(path, { method, token: developer.token, json })).status).toBe(403);
      expect((await server.fetch(path, { method, token: outsider.token, json })).status).toBe(404);
      expect((await server.fetch(path, { method, json })).status).toBe(404);
    }
    await makePublic(server, project, owner);
    expect((await server.fetch(invitesPath(project))).status).toBe(401);
    expect((await server.fetch(invitesPath(project), { token: outsider.token })).status).toBe(403);
  });

  test('an admin deletes a link; its token stops working; members who joined stay', async () => {
    const owner = await registerUser(server);
    const admin = await registerUser(server);
    const joiner = await registerUser(server);
    const project = await createProject(server, owner);
    await addMember(server, project, admin, 'admin');
    const invite = await createInvite(project, admin);
    expect((await join(invite.token, joiner)).status).toBe(200);
    const deleted = await server.fetch(`${invitesPath(project)}/${invite.id}`, { method: 'DELETE', token: admin.token });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ ok: true });
    expect((await server.fetch(`/api/invites?token=${invite.token}`)).status).toBe(404);
    expect((await server.fetch(`/api/projects/${project.id}`, { token: joiner.token })).status).toBe(200);
    const again = await server.fetch(`${invitesPath(project)}/${invite.id}`, { method: 'DELETE', token: admin.token });
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ code: 'not_found', message: 'invite not found' });
  });

  test('an invite of another project cannot be deleted through this one', async () => {
    const owner = await registerUser(server);
    const first = await createProject(server, owner);
    const second = await createProject(server, owner);
    const invite = await createInvite(first, owner);
    expect((await server.fetch(`${invitesPath(second)}/${invite.id}`, { method: 'DELETE', token: owner.token })).status).toBe(404);
    expect((await server.fetch(`/api/invites?token=${invite.token}`)).status).toBe(200);
  });
});

describe('GET/POST /api/invites?token', () => {
  test('view, join as a tester, then already_member', async () => {
    const owner = await registerUser(server);
    const joiner = await registerUser(server);
    const project = await createProject(server, owner, 'Team Game');
    const invite = await createInvite(project, owner, { seats: 3 });
    const view = await server.fetch(`/api/invites?token=${invite.token}`, { token: joiner.token });
    expect(view.status).toBe(200);
    expect(await view.json()).toEqual({
      token: invite.token,
      approved: true,
      expires: null,
      seats: 3,
      projectId: project.id,
      projectTitle: 'Team Game',
      alreadyMember: false,
    });
    const joined = await join(invite.token, joiner);
    expect(joined.status).toBe(200);
    expect(await joined.json()).toEqual({ projectId: project.id, projectTitle: 'Team Game', pending: false });
    expect((await (await server.fetch(`/api/projects/${project.id}`, { token: joiner.token })).json()).userRole).toBe('tester');
    expect((await (await server.fetch(`/api/invites?token=${invite.token}`, { token: joiner.token })).json()).alreadyMember).toBe(true);
    const again = await join(invite.token, joiner);
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ code: 'already_member', message: 'You are already a member of this project' });
    const owners = await join(invite.token, owner);
    expect(owners.status).toBe(409);
    const [row] = await server.deps.db.select({ uses: invites.uses }).from(invites).where(eq(invites.id, invite.id));
    expect(row!.uses).toBe(1);
  });

  test('a visitor may view but must sign in to join', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    const invite = await createInvite(project, owner);
    expect((await (await server.fetch(`/api/invites?token=${invite.token}`)).json()).alreadyMember).toBe(false);
    const response = await join(invite.token);
    expect(response.status).toBe(401);
    expect((await response.json()).code).toBe('unauthorized');
  });

  test('admin approval leaves a pending member until an admin sets a role', async () => {
    const owner = await registerUser(server);
    const joiner = await registerUser(server);
    const project = await createProject(server, owner);
    const invite = await createInvite(project, owner, { approved: false });
    const joined = await join(invite.token, joiner);
    expect(await joined.json()).toMatchObject({ pending: true });
    expect((await server.fetch(`/api/projects/${project.id}`, { token: joiner.token })).status).toBe(404);
    expect((await join(invite.token, joiner)).status).toBe(409);
    const list = await (await server.fetch(`/api/projects/${project.id}/users`, { token: owner.token })).json();
    expect(list.find((item: { user: { id: string } }) => item.user.id === joiner.id)).toMatchObject({ pending: true, role: 'tester' });
    await server.fetch(`/api/projects/${project.id}/users`, { method: 'PUT', token: owner.token, json: { user: joiner.id, role: 'developer' } });
    expect((await (await server.fetch(`/api/projects/${project.id}`, { token: joiner.token })).json()).userRole).toBe('developer');
    const [member] = await server.deps.db.select().from(projectUsers).where(eq(projectUsers.userId, joiner.id));
    expect(member).toMatchObject({ pending: false, inviteId: invite.id });
  });

  test('used-up, expired and unknown invites are refused with clear messages', async () => {
    const owner = await registerUser(server);
    const [first, second] = [await registerUser(server), await registerUser(server)];
    const project = await createProject(server, owner);
    const oneSeat = await createInvite(project, owner, { seats: 1 });
    expect((await join(oneSeat.token, first)).status).toBe(200);
    const full = await join(oneSeat.token, second);
    expect(full.status).toBe(404);
    const noSeats = { code: 'not_found', message: 'This invite has no seats left', details: { reason: 'used_up' } };
    expect(await full.json()).toEqual(noSeats);
    expect(await (await server.fetch(`/api/invites?token=${oneSeat.token}`)).json()).toEqual(noSeats);
    // tRPC carries the same reason, so clients can explain it in the user's language.
    const viaTrpc = await server.trpc(second.token).projects.invites.view.query({ token: oneSeat.token }).catch((error: TRPCClientError<AppRouter>) => error);
    expect(viaTrpc).toBeInstanceOf(TRPCClientError);
    expect((viaTrpc as TRPCClientError<AppRouter>).data).toMatchObject({ code: 'not_found', details: { reason: 'used_up' } });

    const expiring = await createInvite(project, owner);
    await server.deps.db.update(invites).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(invites.id, expiring.id));
    const expired = await join(expiring.token, second);
    expect(expired.status).toBe(404);
    expect(await expired.json()).toEqual({ code: 'not_found', message: 'This invite has expired', details: { reason: 'expired' } });

    const unknown = await join('ci_nothing', second);
    expect(await unknown.json()).toEqual({ code: 'not_found', message: 'invite not found' });
  });

  test('a missing or too long token is a bad parameter', async () => {
    for (const path of ['/api/invites', `/api/invites?token=${'x'.repeat(201)}`]) {
      const response = await server.fetch(path);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ code: 'bad_param', message: 'Invalid `token`' });
    }
  });

  test('two joins on a 1-seat invite admit exactly one', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    const joiners = await Promise.all(Array.from({ length: 6 }, () => registerUser(server)));
    for (let round = 0; round < 3; round++) {
      const invite = await createInvite(project, owner, { oneTime: true });
      const candidates = joiners.slice(round * 2, round * 2 + 2);
      const statuses = await Promise.all(candidates.map(async (user) => (await join(invite.token, user)).status));
      expect(statuses.sort()).toEqual([200, 404]);
      const [row] = await server.deps.db.select({ uses: invites.uses }).from(invites).where(eq(invites.id, invite.id));
      expect(row!.uses).toBe(1);
      const members = await server.deps.db.select().from(projectUsers).where(eq(projectUsers.inviteId, invite.id));
      expect(members).toHaveLength(1);
    }
  });

  test('an API token joins as its user', async () => {
    const owner = await registerUser(server);
    const joiner = await registerUser(server);
    const project = await createProject(server, owner);
    const invite = await createInvite(project, owner);
    const token = await createApiToken(server, joiner);
    const response = await server.fetch(`/api/invites?token=${invite.token}`, { method: 'POST', token });
    expect(response.status).toBe(200);
    expect((await server.fetch(`/api/projects/${project.id}`, { token: joiner.token })).status).toBe(200);
  });
});

describe('invites over tRPC', () => {
  test('create, list, view, join, delete', async () => {
    const owner = await registerUser(server);
    const joiner = await registerUser(server);
    const project = await createProject(server, owner, 'Over tRPC');
    const client = server.trpc(owner.token);
    const created = await client.projects.invites.create.mutate({ project: project.id, approved: true, seats: 2 });
    expect(created.token).toMatch(/^ci_/);
    expect((await client.projects.invites.list.query({ project: project.id })).map((item) => item.id)).toEqual([created.id]);
    const joinerClient = server.trpc(joiner.token);
    expect(await joinerClient.projects.invites.view.query({ token: created.token })).toMatchObject({ projectTitle: 'Over tRPC', alreadyMember: false });
    expect(await joinerClient.projects.invites.join.mutate({ token: created.token })).toEqual({ projectId: project.id, projectTitle: 'Over tRPC', pending: false });
    expect(await failure(joinerClient.projects.invites.join.mutate({ token: created.token }))).toMatchObject({ code: 'already_member', httpStatus: 409 });
    expect(await failure(joinerClient.projects.invites.create.mutate({ project: project.id }))).toMatchObject({ code: 'insufficient_privileges', httpStatus: 403 });
    expect(await client.projects.invites.delete.mutate({ project: project.id, invite: created.id })).toEqual({ ok: true });
    expect(await failure(joinerClient.projects.invites.view.query({ token: created.token }))).toMatchObject({ code: 'not_found', httpStatus: 404 });
  });
});
