import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailure as failure } from '../support/trpc-failure.ts';

let server: TestServer;
let admin: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  admin = await registerUser(server, 'admin');
});
afterAll(() => server.stop());

describe('auth over tRPC', () => {
  test('registers, reads the session and signs out', async () => {
    const session = await server.trpc().auth.password.mutate({ name: 'trpc-user', password: 'trpc password', intent: 'register' });
    expect(session.userInfo?.title).toBe('trpc-user');
    expect(session.userPrivileges).toEqual(['create_project']);
    const client = server.trpc(session.authToken!);
    expect((await client.auth.session.query()).id).toBe(session.id);
    expect(await client.auth.clear.mutate()).toEqual({ ok: true });
    expect((await client.auth.session.query()).userInfo).toBeNull();
    expect(await failure(client.users.me.query())).toMatchObject({ code: 'wrong_auth', httpStatus: 401 });
  });

  test('wrong credentials carry the catalogued code', async () => {
    const result = await failure(server.trpc().auth.password.mutate({ name: 'admin', password: 'not the password' }));
    expect(result).toEqual({ code: 'wrong_credentials', message: 'Wrong user name or password', httpStatus: 401 });
  });

  test('invalid input is bad_param naming the field', async () => {
    const result = await failure(server.trpc().auth.password.mutate({ name: 'x', password: 'long enough' }));
    expect(result).toEqual({ code: 'bad_param', message: 'Invalid `name`', httpStatus: 400 });
  });

  test('an unknown procedure is not_found', async () => {
    const response = await server.fetch('/trpc/nothing.here');
    expect(response.status).toBe(404);
    expect((await response.json()).error.data.code).toBe('not_found');
  });
});

describe('users over tRPC: the same services as REST', () => {
  test('profile, tokens and revocation', async () => {
    const user = await registerUser(server);
    const client = server.trpc(user.token);
    expect((await client.users.me.query()).id).toBe(user.id);
    expect((await client.users.rename.mutate({ title: 'Renamed' })).title).toBe('Renamed');
    const rest = await (await server.fetch('/api/users/me', { token: user.token })).json();
    expect(rest.title).toBe('Renamed');
    const created = await client.users.sessions.create.mutate({ title: 'deploy bot', expires: null });
    expect((await server.fetch('/api/users/me', { token: created.token })).status).toBe(200);
    expect((await client.users.sessions.list.query()).map((item) => item.id)).toContain(created.session.id);
    expect(await failure(server.trpc(created.token).users.sessions.create.mutate({}))).toMatchObject({ code: 'insufficient_privileges', httpStatus: 403 });
    await client.users.sessions.revoke.mutate({ session: created.session.id });
    expect((await server.fetch('/api/users/me', { token: created.token })).status).toBe(401);
    expect(await failure(client.users.sessions.revoke.mutate({ session: created.session.id }))).toMatchObject({ code: 'not_found', httpStatus: 404 });
  });

  test('deletes the account', async () => {
    const user = await registerUser(server);
    await server.trpc(user.token).users.delete.mutate();
    expect((await server.fetch('/api/users/me', { token: user.token })).status).toBe(401);
  });

  test('a visitor is unauthorized', async () => {
    expect(await failure(server.trpc().users.me.query())).toMatchObject({ code: 'unauthorized', httpStatus: 401 });
  });
});

describe('admin privileges over tRPC', () => {
  test('the administrator grants and revokes privileges', async () => {
    const user = await registerUser(server);
    const client = server.trpc(admin.token);
    const granted = await client.admin.grantPrivilege.mutate({ user: user.name, privilege: 'store_publish' });
    expect(granted.privileges).toEqual(['create_project', 'store_publish']);
    const session = await (await server.fetch('/api/auth/session', { token: user.token })).json();
    expect(session.userPrivileges).toEqual(['create_project', 'store_publish']);
    const revoked = await client.admin.revokePrivilege.mutate({ user: user.id, privilege: 'create_project' });
    expect(revoked.privileges).toEqual(['store_publish']);
    expect((await client.admin.users.query()).map((row) => row.id)).toContain(user.id);
  });

  test('others cannot, and an unknown user or privilege is refused', async () => {
    const user = await registerUser(server);
    const asUser = server.trpc(user.token);
    expect(await failure(asUser.admin.grantPrivilege.mutate({ user: user.name, privilege: 'cloud_play' }))).toMatchObject({
      code: 'insufficient_privileges',
      httpStatus: 403,
    });
    expect(await failure(asUser.admin.users.query())).toMatchObject({ code: 'insufficient_privileges' });
    const asAdmin = server.trpc(admin.token);
    expect(await failure(asAdmin.admin.grantPrivilege.mutate({ user: 'nobody-at-all', privilege: 'cloud_play' }))).toMatchObject({ code: 'not_found' });
    // @ts-expect-error an unknown privilege is refused at the boundary
    expect(await failure(asAdmin.admin.grantPrivilege.mutate({ user: user.name, privilege: 'root' }))).toMatchObject({ code: 'bad_param' });
  });
});
