import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { signInProviderIds, type SignInProviderId } from '../../src/shared/schemas/external-auth.ts';
import { credentials } from '../../src/server/db/schema/index.ts';
import { registerUser } from '../support/accounts.ts';
import { startFakeProviders, type FakeProviders } from '../support/fake-providers/index.ts';
import { authorizeAt, callbackOf, finishedFlow, freshIdentity, linkWith, registerExternally, signInWith, started, type SessionReply } from '../support/external-auth.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * External sign-in with each of the six providers, driven like the browser does (spec §4, §5) against
 * fake providers speaking the real protocols: register, sign in and link, over REST and tRPC.
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

const credentialOf = async (target: TestServer, provider: string, name: string) =>
  (await target.deps.db.select().from(credentials).where(and(eq(credentials.provider, provider), eq(credentials.name, name))))[0];

/** The picture each provider's answer leads to for an identity whose avatarUrl is given. */
function pictureOf(provider: SignInProviderId, identity: { id: string; avatarUrl: string }): string {
  return provider === 'discord' ? `https://cdn.discordapp.com/avatars/${identity.id}/${identity.avatarUrl}.png` : identity.avatarUrl;
}

function identityWithPicture(provider: SignInProviderId) {
  const identity = freshIdentity(provider);
  return { ...identity, avatarUrl: provider === 'discord' ? 'a_0123456789abcdef0123456789abcdef' : `https://cdn.example.com/${provider}/${identity.id}.png` };
}

/** itch.io only links (tests/api/external-auth-itch.test.ts): every other provider signs in and registers. */
const signingProviders = signInProviderIds.filter((provider) => provider !== 'itch');

test('GET /api/instance lists the configured providers in the spec order: those that sign in, and all for linking', async () => {
  const info = await (await server.fetch('/api/instance')).json();
  expect(info.signInProviders).toEqual(signingProviders);
  expect(info.linkProviders).toEqual([...signInProviderIds]);
});

describe.each(signingProviders.map((provider) => [provider]))('%s', (provider: SignInProviderId) => {
  test('REST: registers a new account titled as the provider shows it, then signs in with it', async () => {
    const identity = identityWithPicture(provider);
    const registered = await registerExternally(server, fakes, provider, identity);
    expect(registered.userInfo.title).toBe(identity.name);
    expect(registered.authToken).toMatch(/^cs_/);
    expect(registered.userPrivileges).toEqual(['create_project']);
    const stored = await credentialOf(server, provider, identity.id);
    expect(stored).toMatchObject({ userId: registered.userInfo.id, name: identity.id, title: identity.name, isPublic: false, secretHash: null, profilePictureUrl: pictureOf(provider, identity) });
    expect(stored!.lastUsedAt).toBeInstanceOf(Date);
    const me = await (await server.fetch('/api/users/me', { token: registered.authToken })).json();
    expect(me).toMatchObject({ id: registered.userInfo.id, title: identity.name, name: null, isAdmin: false });

    // The account was renamed at the provider since: the sign-in brings the new title.
    fakes.signInAs(provider, { ...identity, name: `${identity.name} renamed` });
    const again = await finishedFlow(server, provider, 'login');
    expect(again).toEqual({ hasUser: true, intent: 'login', token: expect.stringMatching(/^xf_[A-Za-z0-9_-]{43}$/) });
    const response = await signInWith(server, again.token);
    expect(response.status).toBe(200);
    const session = (await response.json()) as SessionReply;
    expect(session.userInfo.id).toBe(registered.userInfo.id);
    expect(session.authToken).not.toBe(registered.authToken);
    const cookie = response.headers.get('set-cookie')!;
    expect(cookie).toContain(`cartridge_session=${session.authToken}`);
    expect(cookie).toMatch(/HttpOnly; SameSite=Lax/);
    const refreshed = await credentialOf(server, provider, identity.id);
    expect(refreshed!.title).toBe(`${identity.name} renamed`);
    expect(refreshed!.lastUsedAt!.getTime()).toBeGreaterThanOrEqual(stored!.lastUsedAt!.getTime());
    // The user's title is theirs once made: the provider's rename does not change it.
    expect((await (await server.fetch('/api/users/me', { token: session.authToken })).json()).title).toBe(identity.name);

    // Registering again with the same account signs in instead (the finish says hasUser).
    fakes.signInAs(provider, identity);
    expect(await finishedFlow(server, provider, 'register')).toMatchObject({ hasUser: true, intent: 'register' });
  });

  test('REST: a signed-in password user links it, lists it, and signs in with it', async () => {
    const user = await registerUser(server);
    const identity = identityWithPicture(provider);
    fakes.signInAs(provider, identity);
    const linking = await finishedFlow(server, provider, 'link', user.token);
    expect(linking).toMatchObject({ hasUser: false, intent: 'link' });
    const response = await linkWith(server, linking.token, user.token);
    expect(response.status).toBe(200);
    const credential = await response.json();
    expect(credential).toEqual({
      provider,
      name: identity.id,
      title: identity.name,
      profileUrl: expect.stringMatching(/^https?:\/\//),
      profilePictureUrl: pictureOf(provider, identity),
      created: expect.any(String),
      lastUsed: expect.any(String),
      isPublic: false,
    });
    const list = await (await server.fetch('/api/users/me/credentials', { token: user.token })).json();
    expect(list.map((item: { provider: string; name: string }) => [item.provider, item.name])).toEqual([
      ...(provider < 'password' ? [[provider, identity.id]] : []),
      ['password', user.name],
      ...(provider > 'password' ? [[provider, identity.id]] : []),
    ]);

    const signIn = await finishedFlow(server, provider, 'login');
    expect(signIn.hasUser).toBe(true);
    const session = (await (await signInWith(server, signIn.token)).json()) as SessionReply;
    expect(session.userInfo.id).toBe(user.id);
    // The finish token was used: it signs in nobody else.
    expect((await signInWith(server, signIn.token)).status).toBe(401);
  });

  test('tRPC: the same flow through auth.externalStart / externalFinish / registerExternal / signInExternal and users.linkCredential / credentials', async () => {
    const visitor = server.trpc();
    const identity = identityWithPicture(provider);
    fakes.signInAs(provider, identity);
    const start = await visitor.auth.externalStart.mutate({ provider, intent: 'register' });
    const callback = callbackOf(provider, await authorizeAt(start));
    expect(callback.state).toBe(start.token);
    const finished = await visitor.auth.externalFinish.mutate({ token: callback.state, code: callback.code });
    expect(finished).toMatchObject({ hasUser: false, intent: 'register' });
    const registered = await visitor.auth.registerExternal.mutate({ token: finished.token });
    expect(registered.userInfo?.title).toBe(identity.name);
    const signedIn = server.trpc(registered.authToken!);
    expect(await signedIn.users.credentials.query()).toEqual([expect.objectContaining({ provider, name: identity.id, isPublic: false })]);

    const login = await visitor.auth.externalStart.mutate({ provider, intent: 'login' });
    const back = callbackOf(provider, await authorizeAt(login));
    const loginFinished = await visitor.auth.externalFinish.mutate({ token: back.state, code: back.code });
    expect(loginFinished).toMatchObject({ hasUser: true, intent: 'login' });
    expect((await visitor.auth.signInExternal.mutate({ token: loginFinished.token })).userInfo?.id).toBe(registered.userInfo!.id);

    // A password user links through tRPC.
    const user = await registerUser(server);
    const linker = server.trpc(user.token);
    const linkIdentity = identityWithPicture(provider);
    fakes.signInAs(provider, linkIdentity);
    const link = await linker.auth.externalStart.mutate({ provider, intent: 'link' });
    const linkBack = callbackOf(provider, await authorizeAt(link));
    const linkFinished = await linker.auth.externalFinish.mutate({ token: linkBack.state, code: linkBack.code });
    expect(linkFinished).toMatchObject({ hasUser: false, intent: 'link' });
    expect(await linker.users.linkCredential.mutate({ token: linkFinished.token })).toMatchObject({ provider, name: linkIdentity.id });
    expect((await linker.users.credentials.query()).map((item) => item.provider).sort()).toEqual(['password', provider].sort());
  });
});

describe('what each provider is sent', () => {
  test('PKCE S256 for GitHub, GitLab and Discord, not Twitch; client secrets only in token request bodies; scopes', async () => {
    const pkce: Record<SignInProviderId, boolean> = { github: true, gitlab: true, discord: true, twitch: false, itch: false, steam: false };
    const scopes: Partial<Record<SignInProviderId, string | null>> = { github: null, gitlab: 'read_user', twitch: '', discord: 'identify', itch: 'profile:me' };
    const linker = await registerUser(server);
    for (const provider of signInProviderIds) {
      const start = provider === 'itch' ? await started(server, provider, 'link', linker.token) : await started(server, provider, 'login');
      const url = new URL(start.url);
      expect(url.searchParams.get('code_challenge_method')).toBe(pkce[provider] ? 'S256' : null);
      expect(url.searchParams.has('code_challenge')).toBe(pkce[provider]);
      if (pkce[provider]) expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      if (provider !== 'steam') {
        expect(url.searchParams.get('state')).toBe(start.token);
        expect(url.searchParams.get('redirect_uri')).toBe(`${server.url}/oauth`);
        expect(url.searchParams.get('scope')).toBe(scopes[provider]!);
      }
    }
    const secrets = Object.entries(fakes.env).filter(([name]) => /SECRET|KEY/.test(name) && name !== 'STEAM_WEB_API_KEY').map(([, value]) => value);
    expect(secrets).toHaveLength(4);
    for (const request of fakes.requests) {
      const query = JSON.stringify(request.query);
      for (const secret of secrets) expect(query).not.toContain(secret);
    }
    const tokenRequests = fakes.requests.filter((request) => request.form?.grant_type === 'authorization_code');
    expect(new Set(tokenRequests.map((request) => request.provider))).toEqual(new Set(['github', 'gitlab', 'twitch', 'discord']));
    for (const request of tokenRequests) {
      expect(request.form!.client_secret).toBe(fakes.env[`${request.provider.toUpperCase()}_CLIENT_SECRET`]!);
      expect('code_verifier' in request.form!).toBe(request.provider !== 'twitch');
      expect(request.form!.redirect_uri).toBe(`${server.url}/oauth`);
    }
    const helix = fakes.requests.filter((request) => request.path === '/api/helix/users');
    expect(helix.length).toBeGreaterThan(0);
    for (const request of helix) expect(request.headers['client-id']).toBe(fakes.env.TWITCH_CLIENT_ID!);
  });

  test("Steam: checkid_setup with return_to PUBLIC_URL/oauth?state and the origin as realm; check_authentication of the whole assertion; GetPlayerSummaries with the key", async () => {
    const start = await started(server, 'steam', 'login');
    const url = new URL(start.url);
    expect(url.origin + url.pathname).toBe(fakes.env.STEAM_OPENID_URL!);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      'openid.ns': 'http://specs.openid.net/auth/2.0',
      'openid.mode': 'checkid_setup',
      'openid.return_to': `${server.url}/oauth?state=${start.token}`,
      'openid.realm': server.url,
      'openid.identity': 'http://specs.openid.net/auth/2.0/identifier_select',
      'openid.claimed_id': 'http://specs.openid.net/auth/2.0/identifier_select',
    });
    const identity = freshIdentity('steam');
    await registerExternally(server, fakes, 'steam', identity);
    const check = fakes.requests.filter((request) => request.provider === 'steam' && request.form?.['openid.mode'] === 'check_authentication').at(-1)!;
    expect(check.form!['openid.claimed_id']).toBe(`https://steamcommunity.com/openid/id/${identity.id}`);
    expect(check.form!['openid.signed']).toContain('return_to');
    const summaries = fakes.requests.filter((request) => request.path === '/api/ISteamUser/GetPlayerSummaries/v2/').at(-1)!;
    expect(summaries.query).toEqual({ key: fakes.env.STEAM_WEB_API_KEY!, steamids: identity.id });
    const stored = await credentialOf(server, 'steam', identity.id);
    expect(stored).toMatchObject({ title: identity.name, profileUrl: `https://steamcommunity.com/id/${identity.login}/` });
  });

  test('provider ids beyond 2^53 are kept as their exact digits (numbers in GitHub JSON, Discord snowflakes, SteamIDs; itch.io: external-auth-itch.test.ts)', async () => {
    const cases: [SignInProviderId, string][] = [
      ['github', '9007199254740993'],
      ['gitlab', '18014398509481985'],
      ['discord', '1234567890123456789'],
      ['steam', '76561199999999999'],
    ];
    for (const [provider, id] of cases) {
      const session = await registerExternally(server, fakes, provider, { id, login: `big_${provider}`, name: `Big ${provider}` });
      const list = await (await server.fetch('/api/users/me/credentials', { token: session.authToken })).json();
      expect(list).toEqual([expect.objectContaining({ provider, name: id })]);
      expect(Number(id) > Number.MAX_SAFE_INTEGER).toBe(true);
    }
  });
});

describe('another instance: PUBLIC_URL and no Steam Web API key', () => {
  let other: TestServer;
  beforeAll(async () => {
    const { STEAM_WEB_API_KEY: _key, ...env } = fakes.env;
    other = await startTestServer({ ...env, PUBLIC_URL: 'https://games.example.com/' });
  });
  afterAll(() => other.stop());

  test('the redirect address is PUBLIC_URL/oauth (Steam: its return_to, realm its origin)', async () => {
    const github = new URL((await started(other, 'github', 'login')).url);
    expect(github.searchParams.get('redirect_uri')).toBe('https://games.example.com/oauth');
    const start = await started(other, 'steam', 'login');
    const steam = new URL(start.url);
    expect(steam.searchParams.get('openid.return_to')).toBe(`https://games.example.com/oauth?state=${start.token}`);
    expect(steam.searchParams.get('openid.realm')).toBe('https://games.example.com');
  });

  test("Steam without STEAM_WEB_API_KEY reads the public community profile XML", async () => {
    const identity = { ...freshIdentity('steam'), avatarUrl: 'https://avatars.example.com/x_full.jpg' };
    const session = await registerExternally(other, fakes, 'steam', identity);
    expect(session.userInfo.title).toBe(identity.name);
    const xml = fakes.requests.filter((request) => request.path === `/profiles/${identity.id}`).at(-1)!;
    expect(xml.query).toEqual({ xml: '1' });
    expect(await credentialOf(other, 'steam', identity.id)).toMatchObject({
      title: identity.name,
      profileUrl: `${fakes.origins.steam}/profiles/${identity.id}`,
      profilePictureUrl: identity.avatarUrl,
    });
  });
});
