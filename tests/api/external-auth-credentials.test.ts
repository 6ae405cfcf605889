import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { TRPCClientError } from '@trpc/client';
import { eq, sql } from 'drizzle-orm';
import { externalAuthFlows, projects } from '../../src/server/db/schema/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { startFakeProviders, type FakeProviders } from '../support/fake-providers/index.ts';
import { accountCounts, expectError, finishedFlow, freshIdentity, linkWith, registerExternally, signInWith, type SessionReply } from '../support/external-auth.ts';
import { createApiToken, createProject, makePublic } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * A user's ways in (spec §2 me, §3 Credential): listed with the password one, never the last one
 * removed, a password added to an account made with a provider, and the public flag that shows a linked
 * account on the store pages of the user's projects.
 */
let fakes: FakeProviders;
let server: TestServer;
beforeAll(async () => {
  fakes = await startFakeProviders();
  server = await startTestServer(fakes.env);
  await registerUser(server, 'first-admin');
});
afterAll(async () => {
  await server.stop();
  await fakes.close();
});

const credentialsPath = (provider: string, name: string) => `/api/users/me/credentials?provider=${encodeURIComponent(provider)}&name=${encodeURIComponent(name)}`;
const unlink = (token: string, provider: string, name: string) => server.fetch(credentialsPath(provider, name), { method: 'DELETE', token });
const setPublic = (token: string, provider: string, name: string, isPublic: boolean) => server.fetch(credentialsPath(provider, name), { method: 'PATCH', token, json: { isPublic } });
const listOf = async (token: string) => (await (await server.fetch('/api/users/me/credentials', { token })).json()) as { provider: string; name: string; title: string; isPublic: boolean; lastUsed: string | null }[];
const asTestUser = (session: SessionReply): TestUser => ({ name: '', password: '', token: session.authToken, id: session.userInfo.id, cookie: '' });
const lastWayIn = { code: 'insufficient_privileges', message: 'This is your only way to sign in: add another one before removing it', details: { reason: 'last_sign_in_method' } };

describe('GET /api/users/me/credentials', () => {
  test('lists the password way in of a password user, and needs a user', async () => {
    const user = await registerUser(server);
    expect(await listOf(user.token)).toEqual([
      { provider: 'password', name: user.name, title: user.name, profileUrl: null, profilePictureUrl: null, created: expect.any(String), lastUsed: expect.any(String), isPublic: false } as never,
    ]);
    await expectError(await server.fetch('/api/users/me/credentials'), 401, { code: 'unauthorized' });
  });
});

describe('unlinking', () => {
  test('the only way in cannot be removed: a password user, and a user made with a provider (REST and tRPC)', async () => {
    const user = await registerUser(server);
    await expectError(await unlink(user.token, 'password', user.name), 403, lastWayIn);
    const identity = freshIdentity('github');
    const external = await registerExternally(server, fakes, 'github', identity);
    await expectError(await unlink(external.authToken, 'github', identity.id), 403, lastWayIn);
    const refused = await server.trpc(external.authToken).users.unlinkCredential.mutate({ provider: 'github', name: identity.id }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<never>).data).toMatchObject({ code: 'insufficient_privileges', details: { reason: 'last_sign_in_method' } });
    expect(await listOf(external.authToken)).toHaveLength(1);
  });

  test("unknown credentials and other users' are not_found; an API token may not unlink", async () => {
    const user = await registerUser(server);
    const other = await registerUser(server);
    await expectError(await unlink(user.token, 'password', other.name), 404, { code: 'not_found', message: 'credential not found' });
    await expectError(await unlink(user.token, 'steam', '76561197960287930'), 404, { code: 'not_found' });
    await expectError(await unlink(await createApiToken(server, user), 'password', user.name), 403, { code: 'insufficient_privileges' });
    await expectError(await server.fetch(credentialsPath('myspace', 'x'), { method: 'DELETE', token: user.token }), 400, { code: 'bad_param', message: 'Invalid `provider`' });
    await expectError(await server.fetch(credentialsPath('github', 'a\u0000b'), { method: 'DELETE', token: user.token }), 400, { code: 'bad_param', message: 'Invalid `name`' });
  });

  test('two ways in: either goes, then the other is the last', async () => {
    const user = await registerUser(server);
    const identity = freshIdentity('discord');
    fakes.signInAs('discord', identity);
    const linking = await finishedFlow(server, 'discord', 'link', user.token);
    expect((await linkWith(server, linking.token, user.token)).status).toBe(200);
    expect((await unlink(user.token, 'password', user.name)).status).toBe(200);
    expect((await listOf(user.token)).map((item) => item.provider)).toEqual(['discord']);
    // The password is gone: it signs in no more; Discord does.
    expect((await server.fetch('/api/auth/password', { method: 'POST', json: { name: user.name, password: user.password } })).status).toBe(401);
    await expectError(await unlink(user.token, 'discord', identity.id), 403, lastWayIn);
    const login = await finishedFlow(server, 'discord', 'login');
    expect(((await (await signInWith(server, login.token)).json()) as SessionReply).userInfo.id).toBe(user.id);
  });
});

describe('POST /api/users/me/password', () => {
  test('a user made with a provider adds a password, signs in with it, and can then unlink the provider', async () => {
    const identity = freshIdentity('gitlab');
    const external = await registerExternally(server, fakes, 'gitlab', identity);
    const name = `pw-${identity.id}`;
    const response = await server.fetch('/api/users/me/password', { method: 'POST', token: external.authToken, json: { name: name.toUpperCase(), password: 'a long and unusual passphrase' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ provider: 'password', name, title: name, isPublic: false, lastUsed: null });
    expect((await (await server.fetch('/api/users/me', { token: external.authToken })).json()).name).toBe(name);
    const signIn = await server.fetch('/api/auth/password', { method: 'POST', json: { name, password: 'a long and unusual passphrase' } });
    expect(((await signIn.json()) as SessionReply).userInfo.id).toBe(external.userInfo.id);

    expect((await unlink(external.authToken, 'gitlab', identity.id)).status).toBe(200);
    expect((await listOf(external.authToken)).map((item) => [item.provider, item.name])).toEqual([['password', name]]);
    await expectError(await unlink(external.authToken, 'password', name), 403, lastWayIn);
  });

  test('refused: a user who has a password, a taken name, a weak password, an API token, a visitor; nothing changes', async () => {
    const passwordUser = await registerUser(server);
    const identity = freshIdentity('twitch');
    const external = await registerExternally(server, fakes, 'twitch', identity);
    const apiToken = await createApiToken(server, asTestUser(external));
    const before = await accountCounts(server);
    const add = (token: string | undefined, json: unknown) => server.fetch('/api/users/me/password', { method: 'POST', token, json });
    await expectError(await add(passwordUser.token, { name: 'another-name', password: 'a long and unusual passphrase' }), 409, {
      code: 'name_conflict',
      message: `You already sign in with a password (as ${passwordUser.name})`,
      details: { reason: 'password_exists' },
    });
    await expectError(await add(external.authToken, { name: passwordUser.name, password: 'a long and unusual passphrase' }), 409, { code: 'name_conflict', message: `The user name ${passwordUser.name} is taken` });
    await expectError(await add(external.authToken, { name: 'fresh-name-1', password: 'password123' }), 400, { code: 'bad_param', details: { field: 'password', reason: 'common' } });
    await expectError(await add(external.authToken, { name: 'fresh-name-1', password: 'fresh-name-1' }), 400, { code: 'bad_param', details: { field: 'password', reason: 'same_as_name' } });
    // The display name the provider gave the account (its title), whatever the case and surrounding spaces.
    await expectError(await add(external.authToken, { name: 'fresh-name-1', password: `  ${identity.name.toUpperCase()} ` }), 400, {
      code: 'bad_param',
      message: 'Invalid `password`: it must not be the user name or the display name',
      details: { field: 'password', reason: 'same_as_name' },
    });
    await expectError(await add(external.authToken, { name: 'x', password: 'a long and unusual passphrase' }), 400, { code: 'bad_param', message: 'Invalid `name`' });
    await expectError(await add(apiToken, { name: 'fresh-name-2', password: 'a long and unusual passphrase' }), 403, { code: 'insufficient_privileges' });
    await expectError(await add(undefined, { name: 'fresh-name-3', password: 'a long and unusual passphrase' }), 401, { code: 'unauthorized' });
    expect(await accountCounts(server)).toEqual(before);
  });

  test('over tRPC: users.addPassword and users.credentials', async () => {
    const external = await registerExternally(server, fakes, 'gitlab', freshIdentity('gitlab'));
    const trpc = server.trpc(external.authToken);
    const name = `trpc-${external.userInfo.id.slice(0, 8)}`;
    expect(await trpc.users.addPassword.mutate({ name, password: 'a long and unusual passphrase' })).toMatchObject({ provider: 'password', name });
    expect((await trpc.users.credentials.query()).map((item) => item.provider)).toEqual(['gitlab', 'password']);
  });
});

type StorePage = { owner: { title: string; credentials: { provider: string; name: string; title: string; profileUrl: string | null; profilePictureUrl: string | null }[] }; title: string };
const storePage = async (projectId: string) => (await (await server.fetch(`/api/store/projects/${projectId}`)).json()) as StorePage;

describe('the public flag and the store page', () => {
  test("PATCH isPublic shows the account on the owner's store pages at once, and hides it again (REST and tRPC)", async () => {
    const identity = { ...freshIdentity('github'), profileUrl: 'https://github.com/someone', avatarUrl: 'https://avatars.example.com/someone.png' };
    const session = await registerExternally(server, fakes, 'github', identity);
    const owner = asTestUser(session);
    const project = await createProject(server, owner);
    await makePublic(server, project, owner);
    expect((await storePage(project.id)).owner.credentials).toEqual([]);

    const response = await setPublic(owner.token, 'github', identity.id, true);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ provider: 'github', name: identity.id, isPublic: true });
    expect((await storePage(project.id)).owner.credentials).toEqual([
      { provider: 'github', name: identity.id, title: identity.name, profileUrl: identity.profileUrl, profilePictureUrl: identity.avatarUrl },
    ]);

    // A new title at the provider reaches the store page with the next sign-in.
    fakes.signInAs('github', { ...identity, name: 'Renamed at GitHub' });
    const login = await finishedFlow(server, 'github', 'login');
    expect((await signInWith(server, login.token)).status).toBe(200);
    expect((await storePage(project.id)).owner.credentials[0]!.title).toBe('Renamed at GitHub');

    expect(await server.trpc(owner.token).users.patchCredential.mutate({ provider: 'github', name: identity.id, isPublic: false })).toMatchObject({ isPublic: false });
    expect((await storePage(project.id)).owner.credentials).toEqual([]);
  });

  test('a sign-in that changes nothing a store page shows leaves the cached pages alone', async () => {
    const identity = freshIdentity('steam');
    const session = await registerExternally(server, fakes, 'steam', identity);
    const owner = asTestUser(session);
    const project = await createProject(server, owner);
    await makePublic(server, project, owner);
    expect((await setPublic(owner.token, 'steam', identity.id, true)).status).toBe(200);
    expect((await storePage(project.id)).title).toBe(project.title);
    // Replica mode skips triggers: the database changes, the cache is not told.
    await server.deps.db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.update(projects).set({ title: 'Silently renamed' }).where(eq(projects.id, project.id));
    });
    const login = await finishedFlow(server, 'steam', 'login');
    expect((await signInWith(server, login.token)).status).toBe(200);
    expect((await listOf(owner.token))[0]!.lastUsed).not.toBeNull();
    expect((await storePage(project.id)).title).toBe(project.title);
    // A change the page shows drops it.
    expect((await setPublic(owner.token, 'steam', identity.id, false)).status).toBe(200);
    expect((await storePage(project.id)).title).toBe('Silently renamed');
  });

  test('PATCH of an unknown credential is not_found; a bad body is bad_param', async () => {
    const user = await registerUser(server);
    await expectError(await setPublic(user.token, 'github', '1', true), 404, { code: 'not_found' });
    await expectError(await server.fetch(credentialsPath('password', user.name), { method: 'PATCH', token: user.token, json: { isPublic: 'yes' } }), 400, { code: 'bad_param', message: 'Invalid `isPublic`' });
  });
});

test('deleting the account takes its credentials and its sign-ins in progress', async () => {
  const identity = freshIdentity('discord');
  const session = await registerExternally(server, fakes, 'discord', identity);
  fakes.signInAs('discord', freshIdentity('discord'));
  const linking = await finishedFlow(server, 'discord', 'link', session.authToken);
  expect((await server.fetch('/api/users/me', { method: 'DELETE', token: session.authToken })).status).toBe(200);
  const flows = await server.deps.db.select().from(externalAuthFlows).where(eq(externalAuthFlows.userId, session.userInfo.id));
  expect(flows).toEqual([]);
  expect(linking.token).toMatch(/^xf_/);
  fakes.signInAs('discord', identity);
  const again = await finishedFlow(server, 'discord', 'register');
  expect(again.hasUser).toBe(false);
});
