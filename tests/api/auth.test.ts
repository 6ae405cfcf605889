import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { credentials, sessions } from '../../src/server/db/schema/index.ts';
import { hashPassword } from '../../src/server/domains/auth/password-hash.ts';
import { registerUser } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const signIn = (body: unknown, headers: Record<string, string> = {}) =>
  server.fetch('/api/auth/password', { method: 'POST', json: body, headers });

describe('POST /api/auth/password', () => {
  test('the first user registered is the administrator and holds every privilege', async () => {
    const response = await signIn({ name: 'Founder', password: 'correct horse', intent: 'register', title: 'The Founder' });
    expect(response.status).toBe(200);
    const session = await response.json();
    expect(session.userInfo).toEqual({ id: expect.any(String), title: 'The Founder' });
    expect(session.userPrivileges.sort()).toEqual(['cloud_play', 'create_project', 'store_publish']);
    expect(session.requireSession).toBe(true);
    expect(session.authToken).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
    expect(new Date(session.expiration).getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(session.started).toBe(session.lastAuth);
    const cookie = response.headers.get('set-cookie')!;
    expect(cookie).toContain(`cartridge_session=${session.authToken}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    const me = await (await server.fetch('/api/users/me', { token: session.authToken })).json();
    expect(me).toMatchObject({ name: 'founder', title: 'The Founder', isAdmin: true });
  });

  test('later users get the default privileges only', async () => {
    const user = await registerUser(server);
    const session = await (await server.fetch('/api/auth/session', { token: user.token })).json();
    expect(session.userPrivileges).toEqual(['create_project']);
    const me = await (await server.fetch('/api/users/me', { token: user.token })).json();
    expect(me.isAdmin).toBe(false);
  });

  test('a taken name is a name_conflict, compared case-insensitively', async () => {
    await registerUser(server, 'taken-name');
    const response = await signIn({ name: 'TAKEN-name', password: 'another password', intent: 'register' });
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ code: 'name_conflict', message: 'The user name taken-name is taken' });
  });

  test('signs in with the right password and opens a new session', async () => {
    const user = await registerUser(server);
    const response = await signIn({ name: user.name, password: user.password });
    expect(response.status).toBe(200);
    const session = await response.json();
    expect(session.userInfo.id).toBe(user.id);
    expect(session.authToken).not.toBe(user.token);
    const list = await (await server.fetch('/api/users/me/sessions', { token: session.authToken })).json();
    expect(list.filter((item: { requireSession: boolean }) => item.requireSession)).toHaveLength(2);
  });

  test('a wrong password and an unknown name answer the same wrong_credentials', async () => {
    const user = await registerUser(server);
    const wrong = await signIn({ name: user.name, password: 'not the password' });
    const unknown = await signIn({ name: 'nobody-by-this-name', password: 'whatever123' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual({ code: 'wrong_credentials', message: 'Wrong user name or password' });
    expect(await unknown.json()).toEqual({ code: 'wrong_credentials', message: 'Wrong user name or password' });
  });

  test.each([
    ['bad JSON', '{"name": "x",', 'Invalid `body`'],
    ['missing password', JSON.stringify({ name: 'someone' }), 'Invalid `password`'],
    ['wrong type', JSON.stringify({ name: 12, password: 'long enough' }), 'Invalid `name`'],
    ['short password', JSON.stringify({ name: 'someone', password: 'short' }), 'Invalid `password`'],
    ['bad name', JSON.stringify({ name: 'no spaces allowed', password: 'long enough' }), 'Invalid `name`'],
    ['unknown intent', JSON.stringify({ name: 'someone', password: 'long enough', intent: 'steal' }), 'Invalid `intent`'],
  ])('invalid input (%s) is a 400 bad_param and creates nothing', async (_case, body, message) => {
    const response = await server.fetch('/api/auth/password', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message });
    const again = await signIn({ name: 'someone', password: 'long enough' });
    expect((await again.json()).code).toBe('wrong_credentials');
  });
});

describe('GET /api/auth/session', () => {
  test('a visitor gets an empty session saying whether sign-in is required', async () => {
    const response = await server.fetch('/api/auth/session');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({
      id: null,
      started: null,
      lastAuth: null,
      expiration: null,
      requireSession: true,
      userInfo: null,
      userPrivileges: [],
      authToken: null,
      authRequired: false,
    });
  });

  test('the session cookie becomes the bearer token the client sends', async () => {
    const user = await registerUser(server);
    const session = await (await server.fetch('/api/auth/session', { headers: { cookie: user.cookie } })).json();
    expect(session.authToken).toBe(user.token);
    expect(session.userInfo.id).toBe(user.id);
  });

  test('the cookie alone authorises nothing else', async () => {
    const user = await registerUser(server);
    const response = await server.fetch('/api/users/me', { headers: { cookie: user.cookie } });
    expect(response.status).toBe(401);
    expect((await response.json()).code).toBe('unauthorized');
  });

  test('an unknown cookie is cleared and answered as a visitor', async () => {
    const response = await server.fetch('/api/auth/session', { headers: { cookie: 'cartridge_session=cs_forged' } });
    expect((await response.json()).userInfo).toBeNull();
    expect(response.headers.get('set-cookie')).toMatch(/cartridge_session=;.*Expires=Thu, 01 Jan 1970/);
  });
});

describe('POST /api/auth/clear and dead tokens', () => {
  test('sign-out ends the session: its token is then wrong_auth', async () => {
    const user = await registerUser(server);
    const cleared = await server.fetch('/api/auth/clear', { method: 'POST', token: user.token });
    expect(cleared.status).toBe(200);
    expect(cleared.headers.get('set-cookie')).toMatch(/cartridge_session=;/);
    const after = await server.fetch('/api/users/me', { token: user.token });
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({ code: 'wrong_auth', message: 'The session or API token is unknown, revoked or expired' });
    expect((await (await server.fetch('/api/auth/session', { token: user.token })).json()).userInfo).toBeNull();
  });

  test('sign-out with the session cookie alone (REST and tRPC) ends that session, and no other', async () => {
    const bystander = await registerUser(server);
    for (const path of ['/api/auth/clear', '/trpc/auth.clear']) {
      const user = await registerUser(server);
      const cleared = await server.fetch(path, { method: 'POST', headers: { origin: server.url, cookie: user.cookie, 'content-type': 'application/json' } });
      expect(cleared.status).toBe(200);
      expect(cleared.headers.get('set-cookie')).toMatch(/cartridge_session=;/);
      // A copy of the cookie (or the token it stood for) no longer works.
      expect((await server.fetch('/api/users/me', { token: user.token })).status).toBe(401);
      expect((await (await server.fetch('/api/auth/session', { headers: { cookie: user.cookie } })).json()).userInfo).toBeNull();
    }
    const unknown = await server.fetch('/api/auth/clear', { method: 'POST', headers: { origin: server.url, cookie: 'cartridge_session=cs_not-a-real-token%00x; cartridge_session=' } });
    expect(unknown.status).toBe(200);
    expect((await server.fetch('/api/users/me', { token: bystander.token })).status).toBe(200);
  });

  test('an unknown bearer token is wrong_auth', async () => {
    const response = await server.fetch('/api/users/me', { token: 'cs_not-a-real-token' });
    expect(response.status).toBe(401);
    expect((await response.json()).code).toBe('wrong_auth');
  });

  test('an expired session is wrong_auth', async () => {
    const user = await registerUser(server);
    await server.deps.db.update(sessions).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(sessions.userId, user.id));
    expect((await server.fetch('/api/users/me', { token: user.token })).status).toBe(401);
  });

  test('tokens are stored only as hashes', async () => {
    const user = await registerUser(server);
    const rows = await server.deps.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(user.token);
  });
});

describe('cross-site requests to the cookie routes', () => {
  const crossSiteHeaders: [string, Record<string, string>][] = [
    ['another origin', { origin: 'http://attacker.example' }],
    ['a sandboxed page (Origin: null)', { origin: 'null' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site (another port of this host)', { 'sec-fetch-site': 'same-site' }],
  ];

  test.each(crossSiteHeaders)('sign-in from %s is refused and sets no cookie', async (_, headers) => {
    const user = await registerUser(server);
    const response = await signIn({ name: user.name, password: user.password }, headers);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ code: 'insufficient_privileges', message: 'Cross-site request refused' });
    expect(response.headers.get('set-cookie')).toBeNull();
    const trpc = await server.fetch('/trpc/auth.password', { method: 'POST', json: { name: user.name, password: user.password }, headers });
    expect(trpc.status).toBe(403);
    expect(trpc.headers.get('set-cookie')).toBeNull();
  });

  test.each(crossSiteHeaders)('sign-out from %s is refused and keeps the cookie', async (_, headers) => {
    const user = await registerUser(server);
    const response = await server.fetch('/api/auth/clear', { method: 'POST', headers: { ...headers, cookie: user.cookie } });
    expect(response.status).toBe(403);
    expect(response.headers.get('set-cookie')).toBeNull();
    const trpc = await server.fetch('/trpc/auth.clear', { method: 'POST', token: user.token, headers: { ...headers, 'content-type': 'application/json' } });
    expect(trpc.status).toBe(403);
    expect((await server.fetch('/api/users/me', { token: user.token })).status).toBe(200);
  });

  test("the app's own pages and programs without browser headers are served", async () => {
    const user = await registerUser(server);
    const ownPage = await signIn({ name: user.name, password: user.password }, { origin: server.url, 'sec-fetch-site': 'same-origin' });
    expect(ownPage.status).toBe(200);
    expect(ownPage.headers.get('set-cookie')).toContain('cartridge_session=');
    const typedAddress = await signIn({ name: user.name, password: user.password }, { 'sec-fetch-site': 'none' });
    expect(typedAddress.status).toBe(200);
    const cleared = await server.fetch('/api/auth/clear', { method: 'POST', token: user.token, headers: { origin: server.url } });
    expect(cleared.status).toBe(200);
  });

  test('PUBLIC_URL is an allowed origin behind a proxy', async () => {
    const proxied = await startTestServer({ PUBLIC_URL: 'https://games.example.com' });
    try {
      const user = await registerUser(proxied);
      const response = await proxied.fetch('/api/auth/password', { method: 'POST', json: { name: user.name, password: user.password }, headers: { origin: 'https://games.example.com' } });
      expect(response.status).toBe(200);
      const elsewhere = await proxied.fetch('/api/auth/password', { method: 'POST', json: { name: user.name, password: user.password }, headers: { origin: 'https://games.example.com.attacker.example' } });
      expect(elsewhere.status).toBe(403);
    } finally {
      await proxied.stop();
    }
  });
});

describe('new passwords (NIST SP 800-63B: length, no common or guessable choices)', () => {
  test.each([
    ['password', 'common'],
    ['12345678', 'repetitive'],
    ['Password1', 'common'],
    ['iloveyou', 'common'],
    ['qwertyuiop', 'common'],
    ['        ', 'blank'],
    ['aaaaaaaaaa', 'repetitive'],
    ['abcdefghij', 'repetitive'],
    ['98765432', 'repetitive'],
    ['cartridge', 'common'],
  ])('%j is refused at registration (%s), and nothing is created', async (password, reason) => {
    const name = `weak${Math.random().toString(36).slice(2, 8)}`;
    const response = await signIn({ name, password, intent: 'register' });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body).toMatchObject({ code: 'bad_param', details: { field: 'password', reason } });
    expect(body.message).toStartWith('Invalid `password`: ');
    expect((await (await signIn({ name, password })).json()).code).toBe('wrong_credentials');
  });

  test('the user name as password is refused, whatever its case', async () => {
    const response = await signIn({ name: 'samename1', password: 'SameName1', intent: 'register' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ details: { reason: 'same_as_name' }, message: 'Invalid `password`: it must not be the user name or the display name' });
  });

  test('the display name as password is refused too (case and surrounding spaces ignored), on REST and tRPC, and nothing is created', async () => {
    const name = `titled${Math.random().toString(36).slice(2, 8)}`;
    const response = await signIn({ name, password: '  MARMALADE Violinist ', title: 'Marmalade violinist', intent: 'register' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'bad_param', details: { field: 'password', reason: 'same_as_name' } });
    const failure = await server.trpc().auth.password.mutate({ name, password: 'marmalade violinist', title: 'Marmalade Violinist', intent: 'register' }).catch((error) => error);
    expect(failure.data).toMatchObject({ code: 'bad_param', httpStatus: 400, details: { field: 'password', reason: 'same_as_name' } });
    expect((await (await signIn({ name, password: 'marmalade violinist' })).json()).code).toBe('wrong_credentials');
  });

  test('tRPC refuses the same passwords with the same details', async () => {
    const failure = await server.trpc().auth.password.mutate({ name: 'weaktrpc', password: 'password', intent: 'register' }).catch((error) => error);
    expect(failure.data).toMatchObject({ code: 'bad_param', httpStatus: 400, details: { field: 'password', reason: 'common' } });
  });

  test('passphrases are welcome, and an older weak password still signs in', async () => {
    const phrase = await signIn({ name: `phrase${Math.random().toString(36).slice(2, 8)}`, password: 'violin marmalade tundra', intent: 'register' });
    expect(phrase.status).toBe(200);
    const user = await registerUser(server);
    const weakHash = await hashPassword(server.deps.config.passwordHash, 'password');
    await server.deps.db.update(credentials).set({ secretHash: weakHash }).where(eq(credentials.userId, user.id));
    expect((await signIn({ name: user.name, password: 'password' })).status).toBe(200);
  });
});

test('behind a proxy that rewrites the Host header, a browser saying same-origin may still sign in', async () => {
  const user = await registerUser(server);
  const response = await signIn({ name: user.name, password: user.password }, { origin: 'https://games.example.com', 'sec-fetch-site': 'same-origin' });
  expect(response.status).toBe(200);
});
