import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { deployCredentials } from '../../src/server/db/schema/index.ts';
import { checkItchKey } from '../../src/server/domains/deploys/itch-api.ts';
import { AppError } from '../../src/server/errors.ts';
import { createLogger } from '../../src/server/logger.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { startFakeItchApi, type FakeItchApi } from '../support/fake-itch/api.ts';
import { createApiToken } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { itchAccount, itchKey, replyRecorder } from './deploys-support.ts';

let server: TestServer;
let itch: FakeItchApi;
let api: ReturnType<typeof replyRecorder>;
const logLines: string[] = [];
/** Every key handed to the server, valid or not: none may come back in a reply or the log. */
const keysSent: string[] = [];

const path = '/api/users/me/deploy-credentials';

beforeAll(async () => {
  itch = startFakeItchApi({ keys: {} });
  server = await startTestServer({ ITCH_API_URL: itch.url }, { log: createLogger('debug', (line) => logLines.push(line)) });
  api = replyRecorder(server);
  await registerUser(server, 'admin');
}, 60_000);
afterAll(async () => {
  await server.stop();
  await itch.stop();
});

function newItchKey(developer = `dev${Math.random().toString(36).slice(2, 8)}`, slugs?: string[], extra = {}): string {
  const key = itchKey();
  itch.setKey(key, itchAccount(developer, slugs, extra));
  keysSent.push(key);
  return key;
}

const create = (user: TestUser | string | undefined, json: unknown) =>
  api.call(path, { method: 'POST', token: typeof user === 'string' ? user : user?.token, json });

describe('POST/GET/DELETE /api/users/me/deploy-credentials', () => {
  test('adds an itch.io key checked with itch.io, stored sealed, titled Key {n} by default, never returned', async () => {
    const user = await registerUser(server);
    const key = newItchKey();
    const before = itch.requests.length;
    const first = await create(user, { provider: 'itch', key });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ id: expect.any(String), title: 'Key 1', provider: 'itch', created: expect.any(String), sites: [] });
    // itch.io was asked with the key as a bearer token: profile, key info, games.
    const calls = itch.requests.slice(before);
    expect(calls.map((call) => call.path)).toEqual(['/profile', '/credentials/info', '/profile/games']);
    expect(calls.every((call) => call.authorization === 'bearer' && call.known)).toBe(true);
    const [row] = await server.deps.db.select().from(deployCredentials).where(eq(deployCredentials.id, first.body.id));
    expect(row!.sealedKey).not.toContain(key);
    expect(server.deps.keys.openSecret(row!.sealedKey)).toBe(key);

    const second = await create(user, { title: '', provider: 'itch', key: newItchKey() });
    expect(second.body.title).toBe('Key 2');
    const named = await create(user, { title: '  Studio key \u202e ', provider: 'itch', key: newItchKey() });
    expect(named.body.title).toBe('Studio key');
    const list = await api.call(path, { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body.map((item: { title: string }) => item.title)).toEqual(['Key 1', 'Key 2', 'Studio key']);
    expect(Object.keys(list.body[0]).sort()).toEqual(['created', 'id', 'provider', 'sites', 'title']);
    // Another user's list is their own.
    const other = await registerUser(server);
    expect((await api.call(path, { token: other.token })).body).toEqual([]);
  });

  test('the same over tRPC: create, list, available sites, delete', async () => {
    const user = await registerUser(server);
    const key = newItchKey('trpcdev', ['alpha', 'beta']);
    const client = server.trpc(user.token);
    const created = await api.trpc(client.deploys.credentials.create.mutate({ provider: 'itch', key }));
    expect(created).toMatchObject({ ok: true, value: { title: 'Key 1', provider: 'itch', sites: [] } });
    const id = (created as { value: { id: string } }).value.id;
    expect(await api.trpc(client.deploys.credentials.list.query())).toMatchObject({ ok: true, value: [{ id, title: 'Key 1' }] });
    const sites = await api.trpc(client.deploys.credentials.availableSites.query({ credential: id }));
    expect(sites).toEqual({
      ok: true,
      value: [
        { id: expect.any(String), title: 'Game alpha', pictureUrl: 'https://img.itch.zone/alpha.png', site: 'trpcdev/alpha' },
        { id: expect.any(String), title: 'Game beta', pictureUrl: 'https://img.itch.zone/beta.png', site: 'trpcdev/beta' },
      ],
    });
    expect(await api.trpc(client.deploys.credentials.delete.mutate({ credential: id }))).toEqual({ ok: true, value: { ok: true, deletedSites: [] } });
    expect(await api.trpc(client.deploys.credentials.list.query())).toEqual({ ok: true, value: [] });
    expect(await api.trpc(client.deploys.credentials.delete.mutate({ credential: id }))).toMatchObject({ ok: false, code: 'not_found', httpStatus: 404 });
    // Refusals carry the same codes as REST.
    expect(await api.trpc(client.deploys.credentials.create.mutate({ provider: 'itch', key: 'short' }))).toMatchObject({ ok: false, code: 'bad_param', message: 'Invalid `key`' });
    expect(await api.trpc(client.deploys.credentials.create.mutate({ provider: 'steam', key: 'anything' }))).toMatchObject({ ok: false, code: 'not_supported', httpStatus: 501 });
    expect(await api.trpc(server.trpc().deploys.credentials.list.query())).toMatchObject({ ok: false, code: 'unauthorized', httpStatus: 401 });
  });

  test('an itch.io key is exactly 40 letters and digits; refused keys never reach itch.io', async () => {
    const user = await registerUser(server);
    const valid = itchKey();
    const wrongKeys = [valid.slice(0, 39), `${valid}A`, `${valid.slice(0, 39)}-`, `${valid.slice(0, 20)}\u0000${valid.slice(21)}`, `${valid.slice(0, 39)}é`, ` ${valid.slice(1)}`, '', 'x'.repeat(100_000)];
    keysSent.push(...wrongKeys.filter((key) => key.length >= 20 && key.length < 1000));
    const before = itch.requests.length;
    for (const key of wrongKeys) {
      const refused = await create(user, { provider: 'itch', key });
      expect({ key: key.slice(0, 50), status: refused.status, body: refused.body }).toEqual({ key: key.slice(0, 50), status: 400, body: { code: 'bad_param', message: 'Invalid `key`' } });
      expect(await api.trpc(server.trpc(user.token).deploys.credentials.create.mutate({ provider: 'itch', key }))).toMatchObject({ ok: false, code: 'bad_param', message: 'Invalid `key`' });
    }
    expect(itch.requests.length).toBe(before);
    expect((await api.call(path, { token: user.token })).body).toEqual([]);
  });

  test('wrong types, missing fields and hostile bodies are bad_param naming the field', async () => {
    const user = await registerUser(server);
    const key = newItchKey();
    const cases: [unknown, string][] = [
      [{ key }, 'provider'],
      [{ provider: 'itch' }, 'key'],
      [{ provider: 'github', key }, 'provider'],
      [{ provider: 'itch', key: 12 }, 'key'],
      [{ provider: 'itch', key: [key] }, 'key'],
      [{ provider: 'itch', key, title: 12 }, 'title'],
      [{ provider: 'itch', key, title: 'a\u0000b' }, 'title'],
      [{ provider: 'itch', key, title: 'x'.repeat(65) }, 'title'],
      [{ provider: 'itch', key, title: { nested: { deeper: true } } }, 'title'],
      [{ provider: ['itch'], key }, 'provider'],
    ];
    for (const [json, field] of cases) {
      const refused = await create(user, json);
      expect({ json, status: refused.status, body: refused.body }).toEqual({ json, status: 400, body: { code: 'bad_param', message: `Invalid \`${field}\`` } });
    }
    for (const json of [[], 'text', null, 7]) {
      const refused = await create(user, json);
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('bad_param');
    }
    let deep: unknown = 'x';
    for (let i = 0; i < 100; i++) deep = { title: deep };
    expect((await create(user, deep)).status).toBe(400);
    const huge = await create(user, { provider: 'itch', key, title: 'x'.repeat(2 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect((await api.call(path, { token: user.token })).body).toEqual([]);
  });

  test('Steam deploy credentials are not_supported, saying why', async () => {
    const user = await registerUser(server);
    const refused = await create(user, { provider: 'steam', key: 'builder-account-password' });
    keysSent.push('builder-account-password');
    expect(refused.status).toBe(501);
    expect(refused.body.code).toBe('not_supported');
    expect(refused.body.message).toContain('Steam deploy credentials are not supported');
    expect(refused.body.message).toMatch(/SteamPipe/);
    expect((await api.call(path, { token: user.token })).body).toEqual([]);
  });

  test('itch.io refusals: unknown key, key of an OAuth sign-in (profile scope only), a game token, no games scope', async () => {
    const user = await registerUser(server);
    const unknown = itchKey();
    keysSent.push(unknown);
    const refused = await create(user, { provider: 'itch', key: unknown });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ code: 'bad_param', message: expect.stringContaining('itch.io refused this key'), details: { field: 'key', reason: 'key_refused' } });

    const signInKey = newItchKey(undefined, ['g'], { scopes: ['profile:me'], oauth_application_id: 42 });
    const profileOnly = await create(user, { provider: 'itch', key: signInKey });
    expect(profileOnly.status).toBe(400);
    expect(profileOnly.body).toEqual({ code: 'bad_param', message: expect.stringContaining('cannot push builds'), details: { field: 'key', reason: 'key_cannot_push' } });
    for (const extra of [{ scopes: ['profile'] }, { scopes: ['wharf'] }, { type: 'jwt' as const }]) {
      const key = newItchKey(undefined, ['g'], extra);
      const answer = await create(user, { provider: 'itch', key });
      expect({ extra, reason: answer.body.details?.reason }).toEqual({ extra, reason: 'key_cannot_push' });
    }
    // Scoped keys that do allow both are accepted.
    const scoped = await create(user, { provider: 'itch', key: newItchKey(undefined, ['g'], { scopes: ['profile', 'wharf'] }) });
    expect(scoped.status).toBe(200);
    expect((await api.call(path, { token: user.token })).body).toHaveLength(1);
    expect(await api.trpc(server.trpc(user.token).deploys.credentials.create.mutate({ provider: 'itch', key: signInKey }))).toMatchObject({ ok: false, code: 'bad_param', httpStatus: 400 });
  });

  test('itch.io failing or unreachable: timeout (503), nothing stored, no key in the error', async () => {
    const key = itchKey();
    const failing = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('oops', { status: 502 }) });
    const odd = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('<html>hello</html>', { status: 200 }) });
    try {
      const failure = await checkItchKey(failing.url.origin, key).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AppError);
      expect((failure as AppError).code).toBe('timeout');
      const closed = await checkItchKey('http://127.0.0.1:1', key).catch((error: unknown) => error);
      expect((closed as AppError).code).toBe('timeout');
      const strange = await checkItchKey(odd.url.origin, key).catch((error: unknown) => error);
      expect((strange as AppError).code).toBe('unexpected_error');
      for (const error of [failure, closed, strange]) expect(JSON.stringify({ message: (error as Error).message, details: (error as AppError).details })).not.toContain(key);
    } finally {
      await failing.stop(true);
      await odd.stop(true);
    }
  });

  test('anonymous callers are 401; API tokens act as their user', async () => {
    const user = await registerUser(server);
    const key = newItchKey();
    for (const [method, url] of [
      ['GET', path],
      ['POST', path],
      ['DELETE', `${path}/abc`],
      ['GET', `${path}/abc/available-sites`],
    ] as const) {
      const answer = await api.call(url, { method, json: method === 'POST' ? { provider: 'itch', key } : undefined });
      expect({ method, url, status: answer.status, code: answer.body.code }).toEqual({ method, url, status: 401, code: 'unauthorized' });
    }
    const anonymous = server.trpc();
    for (const call of [
      anonymous.deploys.credentials.list.query() as Promise<unknown>,
      anonymous.deploys.credentials.create.mutate({ provider: 'itch', key }),
      anonymous.deploys.credentials.delete.mutate({ credential: 'abc' }),
      anonymous.deploys.credentials.availableSites.query({ credential: 'abc' }),
    ]) {
      expect(await api.trpc(call)).toMatchObject({ ok: false, code: 'unauthorized', httpStatus: 401 });
    }
    const token = await createApiToken(server, user);
    const created = await create(token, { provider: 'itch', key });
    expect(created.status).toBe(200);
    expect((await api.call(path, { token: user.token })).body).toMatchObject([{ id: created.body.id }]);
    expect((await api.call(`${path}/${created.body.id}/available-sites`, { token })).status).toBe(200);
    expect((await api.call(`${path}/${created.body.id}`, { method: 'DELETE', token })).body).toEqual({ ok: true, deletedSites: [] });
  });

  test("another user's credential is not_found: delete and available sites", async () => {
    const owner = await registerUser(server);
    const other = await registerUser(server);
    const created = await create(owner, { provider: 'itch', key: newItchKey() });
    const id = created.body.id;
    for (const [method, url] of [
      ['DELETE', `${path}/${id}`],
      ['GET', `${path}/${id}/available-sites`],
      ['DELETE', `${path}/unknown`],
      ['GET', `${path}/unknown/available-sites`],
    ] as const) {
      const answer = await api.call(url, { method, token: other.token });
      expect({ method, url, status: answer.status, body: answer.body }).toEqual({ method, url, status: 404, body: { code: 'not_found', message: 'deploy-credential not found' } });
    }
    const client = server.trpc(other.token);
    expect(await api.trpc(client.deploys.credentials.delete.mutate({ credential: id }))).toMatchObject({ ok: false, code: 'not_found' });
    expect(await api.trpc(client.deploys.credentials.availableSites.query({ credential: id }))).toMatchObject({ ok: false, code: 'not_found' });
    // Hostile ids are refused before any lookup.
    for (const bad of ['a%00b', 'x'.repeat(300), '..%2Fx']) {
      const answer = await api.call(`${path}/${bad}`, { method: 'DELETE', token: owner.token });
      expect(answer.status === 400 || answer.status === 404).toBe(true);
    }
    expect((await api.call(path, { token: owner.token })).body).toHaveLength(1);
  });

  test('available sites: the key games, and a key revoked since on itch.io is refused', async () => {
    const user = await registerUser(server);
    const key = newItchKey('Sites-Dev', ['one', 'two', 'three']);
    const created = await create(user, { provider: 'itch', key });
    const sites = await api.call(`${path}/${created.body.id}/available-sites`, { token: user.token });
    expect(sites.status).toBe(200);
    expect(sites.body.map((site: { site: string }) => site.site)).toEqual(['sites-dev/one', 'sites-dev/two', 'sites-dev/three']);
    expect(sites.body[0]).toEqual({ id: expect.stringMatching(/^\d+$/), title: 'Game one', pictureUrl: 'https://img.itch.zone/one.png', site: 'sites-dev/one' });
    itch.revokeKey(key);
    const revoked = await api.call(`${path}/${created.body.id}/available-sites`, { token: user.token });
    expect(revoked.status).toBe(400);
    expect(revoked.body.details).toEqual({ field: 'key', reason: 'key_refused' });
  });

  test('no reply and no log line ever carried a key', async () => {
    expect(keysSent.length).toBeGreaterThan(10);
    expect(api.replies.length).toBeGreaterThan(50);
    const replies = api.replies.join('\n');
    const log = logLines.join('\n');
    expect(logLines.length).toBeGreaterThan(20);
    for (const key of keysSent) {
      expect(replies.includes(key)).toBe(false);
      expect(log.includes(key)).toBe(false);
    }
  });
});
