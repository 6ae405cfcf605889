import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { credentials, sessions, userPrivileges, users } from '../../src/server/db/schema/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createApiToken, createProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let admin: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  admin = await registerUser(server, 'admin');
});
afterAll(() => server.stop());

describe('/api/users/me', () => {
  test('a visitor is unauthorized', async () => {
    const response = await server.fetch('/api/users/me');
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ code: 'unauthorized', message: 'Sign in first' });
  });

  test('renames the profile', async () => {
    const user = await registerUser(server);
    const response = await server.fetch('/api/users/me', { method: 'PATCH', token: user.token, json: { title: '  Pixel Smith ' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: user.id, title: 'Pixel Smith', name: user.name, privileges: ['create_project'] });
    const session = await (await server.fetch('/api/auth/session', { token: user.token })).json();
    expect(session.userInfo.title).toBe('Pixel Smith');
  });

  test.each([{ title: '' }, { title: 'x'.repeat(65) }, { title: 5 }, {}])('refuses the title %j, naming the field', async (body) => {
    const user = await registerUser(server);
    const response = await server.fetch('/api/users/me', { method: 'PATCH', token: user.token, json: body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message: 'Invalid `title`' });
  });

  test('deleting the account leaves no rows behind and kills its tokens', async () => {
    const user = await registerUser(server);
    const created = await (await server.fetch('/api/users/me/sessions', { method: 'POST', token: user.token, json: {} })).json();
    const response = await server.fetch('/api/users/me', { method: 'DELETE', token: user.token });
    expect(response.status).toBe(200);
    for (const table of [sessions, credentials, userPrivileges]) {
      const [row] = await server.deps.db.select({ count: sql<number>`count(*)::int` }).from(table).where(eq(table.userId, user.id));
      expect(row!.count).toBe(0);
    }
    expect(await server.deps.db.select().from(users).where(eq(users.id, user.id))).toEqual([]);
    expect((await server.fetch('/api/users/me', { token: user.token })).status).toBe(401);
    expect((await server.fetch('/api/users/me', { token: created.token })).status).toBe(401);
    const signIn = await server.fetch('/api/auth/password', { method: 'POST', json: { name: user.name, password: user.password } });
    expect((await signIn.json()).code).toBe('wrong_credentials');
  });

  test('an owner of projects is refused (issue 13): not_empty naming every owned project, over REST and tRPC alike', async () => {
    const owner = await registerUser(server);
    const member = await registerUser(server);
    const zeta = await createProject(server, owner, 'Zeta Quest');
    const alpha = await createProject(server, owner, 'Alpha Run');
    // Owned by someone else: a membership is no reason to refuse and is not named.
    const theirs = await createProject(server, member, 'Not Mine');
    await server.fetch(`/api/projects/${theirs.id}/users`, { method: 'PUT', token: member.token, json: { user: owner.id, role: 'developer' } });
    const expected = { projects: [{ id: alpha.id, title: 'Alpha Run' }, { id: zeta.id, title: 'Zeta Quest' }] };

    const refused = await server.fetch('/api/users/me', { method: 'DELETE', token: owner.token });
    expect(refused.status).toBe(409);
    const body = await refused.json();
    expect(body).toMatchObject({ code: 'not_empty', details: expected });
    expect(body.message).toContain('Alpha Run');
    const overTrpc = await server.trpc(owner.token).users.delete.mutate().then(
      () => undefined,
      (error: { data?: { code?: string; details?: unknown } }) => error.data,
    );
    expect(overTrpc).toMatchObject({ code: 'not_empty', details: expected });
    expect((await server.fetch('/api/users/me', { token: owner.token })).status).toBe(200);
  });

  test('a refusal names projects only to the browser session of their owner: an API token is refused first', async () => {
    const owner = await registerUser(server);
    await createProject(server, owner, 'Hidden From Tokens');
    const response = await server.fetch('/api/users/me', { method: 'DELETE', token: await createApiToken(server, owner) });
    expect(response.status).toBe(403);
    const body = await response.json();
    expect(body.code).toBe('insufficient_privileges');
    expect(JSON.stringify(body)).not.toContain('Hidden From Tokens');
  });

  test('an API token cannot delete the account', async () => {
    const user = await registerUser(server);
    const { token } = await (await server.fetch('/api/users/me/sessions', { method: 'POST', token: user.token, json: {} })).json();
    const response = await server.fetch('/api/users/me', { method: 'DELETE', token });
    expect(response.status).toBe(403);
    expect((await response.json()).code).toBe('insufficient_privileges');
    expect((await server.fetch('/api/users/me', { token: user.token })).status).toBe(200);
  });
});

describe('/api/users/me/sessions', () => {
  test('lists the browser session as current', async () => {
    const user = await registerUser(server);
    const list = await (await server.fetch('/api/users/me/sessions', { token: user.token })).json();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ requireSession: true, isCurrent: true, title: null });
    expect(JSON.stringify(list)).not.toContain(user.token);
  });

  test('creates an API token shown once, which works as a bearer token', async () => {
    const user = await registerUser(server);
    const expires = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const response = await server.fetch('/api/users/me/sessions', { method: 'POST', token: user.token, json: { title: 'CI', expires } });
    expect(response.status).toBe(200);
    const created = await response.json();
    expect(created.token).toMatch(/^ct_/);
    expect(created.session).toMatchObject({ title: 'CI', requireSession: false, isCurrent: false, expiration: expires });
    const me = await server.fetch('/api/users/me', { token: created.token });
    expect((await me.json()).id).toBe(user.id);
    const session = await (await server.fetch('/api/auth/session', { token: created.token })).json();
    expect(session.requireSession).toBe(false);
    const list = await (await server.fetch('/api/users/me/sessions', { token: user.token })).json();
    expect(list.map((item: { id: string }) => item.id)).toContain(created.session.id);
    expect(JSON.stringify(list)).not.toContain(created.token);
  });

  test('a token without expiry never expires', async () => {
    const user = await registerUser(server);
    const created = await (await server.fetch('/api/users/me/sessions', { method: 'POST', token: user.token, json: { expires: null } })).json();
    expect(created.session.expiration).toBeNull();
    expect(created.session.title).toBe('API token');
  });

  test.each([
    [{ expires: '2001-01-01T00:00:00Z' }, 'Invalid `expires`: it must be in the future'],
    [{ expires: 'tomorrow' }, 'Invalid `expires`'],
    [{ title: '' }, 'Invalid `title`'],
  ])('refuses %j', async (body, message) => {
    const user = await registerUser(server);
    const response = await server.fetch('/api/users/me/sessions', { method: 'POST', token: user.token, json: body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message });
    const list = await (await server.fetch('/api/users/me/sessions', { token: user.token })).json();
    expect(list).toHaveLength(1);
  });

  test('an API token cannot mint more tokens or revoke sessions', async () => {
    const user = await registerUser(server);
    const created = await (await server.fetch('/api/users/me/sessions', { method: 'POST', token: user.token, json: {} })).json();
    const mint = await server.fetch('/api/users/me/sessions', { method: 'POST', token: created.token, json: {} });
    expect(mint.status).toBe(403);
    const list = await (await server.fetch('/api/users/me/sessions', { token: created.token })).json();
    const browser = list.find((item: { requireSession: boolean }) => item.requireSession);
    const revoke = await server.fetch(`/api/users/me/sessions/${browser.id}`, { method: 'DELETE', token: created.token });
    expect(revoke.status).toBe(403);
  });

  test('revoking a token makes it wrong_auth at once', async () => {
    const user = await registerUser(server);
    const created = await (await server.fetch('/api/users/me/sessions', { method: 'POST', token: user.token, json: {} })).json();
    const response = await server.fetch(`/api/users/me/sessions/${created.session.id}`, { method: 'DELETE', token: user.token });
    expect(response.status).toBe(200);
    const after = await server.fetch('/api/users/me', { token: created.token });
    expect(after.status).toBe(401);
    expect((await after.json()).code).toBe('wrong_auth');
    const again = await server.fetch(`/api/users/me/sessions/${created.session.id}`, { method: 'DELETE', token: user.token });
    expect(again.status).toBe(404);
  });

  test("someone else's session is not_found and stays alive", async () => {
    const owner = await registerUser(server);
    const intruder = await registerUser(server);
    const list = await (await server.fetch('/api/users/me/sessions', { token: owner.token })).json();
    const response = await server.fetch(`/api/users/me/sessions/${list[0].id}`, { method: 'DELETE', token: intruder.token });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: 'not_found', message: 'session not found' });
    expect((await server.fetch('/api/users/me', { token: owner.token })).status).toBe(200);
  });

  test('an expired API token is wrong_auth and no longer listed', async () => {
    const user = await registerUser(server);
    const created = await (await server.fetch('/api/users/me/sessions', { method: 'POST', token: user.token, json: { expires: new Date(Date.now() + 60_000).toISOString() } })).json();
    await server.deps.db.update(sessions).set({ expiresAt: new Date(Date.now() - 1) }).where(eq(sessions.id, created.session.id));
    expect((await server.fetch('/api/users/me', { token: created.token })).status).toBe(401);
    const list = await (await server.fetch('/api/users/me/sessions', { token: user.token })).json();
    expect(list.map((item: { id: string }) => item.id)).not.toContain(created.session.id);
  });

  test('the session parameter is validated', async () => {
    const response = await server.fetch(`/api/users/me/sessions/${'x'.repeat(100)}`, { method: 'DELETE', token: admin.token });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message: 'Invalid `session`' });
  });
});
