import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import type { Session } from '../../src/shared/schemas/auth.ts';
import { users } from '../../src/server/db/schema/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { okJson, startCluster, type Cluster, type ClusterNode } from '../support/cluster.ts';

/**
 * Sign-in limits, sessions and API tokens with two processes: the counters and the sessions are rows
 * of the shared database, so failures counted by one process count on the other, and a session or
 * token made, ended or revoked through one is valid, or refused, on the other at the next request.
 * TRUST_PROXY: client addresses come from X-Forwarded-For, as behind the load balancer.
 */
const perAccount = 4;
const perAddress = 6;

let cluster: Cluster;
let a: ClusterNode;
let b: ClusterNode;

beforeAll(async () => {
  cluster = await startCluster({ env: { TRUST_PROXY: 'true', SIGN_IN_LIMIT_ACCOUNT: String(perAccount), SIGN_IN_LIMIT_ADDRESS: String(perAddress) } });
  ({ a, b } = cluster);
}, 90_000);
afterAll(() => cluster?.stop());

const signIn = (node: ClusterNode, name: string, password: string, address: string) =>
  node.fetch('/api/auth/password', { method: 'POST', json: { name, password }, headers: { 'x-forwarded-for': address } });

/** Wrong passwords one after the other through `nodes` in turn, until the first refusal: how many were answered 401. */
async function failuresBeforeLimit(nodes: ClusterNode[], name: string, address: string): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const status = (await signIn(nodes[attempt % nodes.length]!, name, 'wrong password', address)).status;
    if (status === 429) return attempt;
    expect(status).toBe(401);
  }
  throw new Error('never limited');
}

const statusCounts = (statuses: number[]) => statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

describe('registration races across processes', () => {
  // First in the file: the instance has no user yet.
  test('first accounts registered through both processes at once: exactly one becomes the administrator; one name, one account', async () => {
    const register = (node: ClusterNode, name: string) =>
      node.fetch('/api/auth/password', { method: 'POST', json: { name, password: `pw-${name}-secret`, intent: 'register' }, headers: { 'x-forwarded-for': '192.0.2.200' } });
    const names = Array.from({ length: 6 }, (_, index) => `first${index}${Math.random().toString(36).slice(2, 6)}`);
    const statuses = await Promise.all(names.map(async (name, index) => (await register(index % 2 ? b : a, name)).status));
    expect(statuses).toEqual(names.map(() => 200));
    const admins = await cluster.db.select({ id: users.id }).from(users).where(eq(users.isAdmin, true));
    expect(admins).toHaveLength(1);

    const same = `same${Math.random().toString(36).slice(2, 6)}`;
    const answers = await Promise.all([a, b, a, b].map(async (node) => {
      const response = await register(node, same);
      return { status: response.status, code: ((await response.json()) as { code?: string }).code };
    }));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status !== 200).map((answer) => answer.code)).toEqual(['name_conflict', 'name_conflict', 'name_conflict']);
  });
});

describe('sign-in limits count across processes', () => {
  test('failures alternating between A and B reach the account limit at the same total as failures on A alone', async () => {
    const alone = await registerUser(a.server);
    const alternating = await registerUser(b.server);
    expect(await failuresBeforeLimit([a], alone.name, '198.51.100.1')).toBe(perAccount);
    expect(await failuresBeforeLimit([a, b], alternating.name, '198.51.100.2')).toBe(perAccount);
    // Limited on both, even with the right password, from that address; another address still signs in.
    for (const node of [a, b]) expect((await signIn(node, alternating.name, alternating.password, '198.51.100.2')).status).toBe(429);
    expect((await signIn(b, alternating.name, alternating.password, '198.51.100.3')).status).toBe(200);
   }, 60_000);

  test('guesses sent at once through both processes consume one shared budget', async () => {
    const user = await registerUser(a.server);
    const statuses = await Promise.all(
      Array.from({ length: 30 }, async (_, index) => (await signIn(index % 2 ? b : a, user.name, 'wrong password', '198.51.100.10')).status),
    );
    expect(statusCounts(statuses)).toEqual({ 401: perAccount, 429: 30 - perAccount });
  });

  test('the per-address limit counts failures on made-up names through both processes', async () => {
    for (let attempt = 0; attempt < perAddress; attempt++) {
      expect((await signIn(attempt % 2 ? b : a, `ghost${attempt}`, 'wrong password', '203.0.113.5')).status).toBe(401);
    }
    const user = await registerUser(b.server);
    for (const node of [a, b]) expect((await signIn(node, user.name, user.password, '203.0.113.5')).status).toBe(429);
    expect((await signIn(a, user.name, user.password, '203.0.113.6')).status).toBe(200);
  });

  test('a successful sign-in through B clears the account counter A filled', async () => {
    const user = await registerUser(a.server);
    for (let attempt = 0; attempt < perAccount - 1; attempt++) expect((await signIn(a, user.name, 'wrong password', '192.0.2.1')).status).toBe(401);
    expect((await signIn(b, user.name, user.password, '192.0.2.1')).status).toBe(200);
    // A fresh budget: perAccount - 1 more failures are still answered 401 through A.
    for (let attempt = 0; attempt < perAccount - 1; attempt++) expect((await signIn(a, user.name, 'wrong password', '192.0.2.1')).status).toBe(401);
  });
});

describe('sessions and API tokens across processes', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await registerUser(a.server);
  });

  const me = (node: ClusterNode, token: string) => node.fetch('/api/users/me', { token });
  const sessionOf = (node: ClusterNode, cookie: string) => node.fetch('/api/auth/session', { cookie });

  test('the session cookie and token A issued at registration work on B (REST and tRPC)', async () => {
    expect(user.cookie).toMatch(/=/);
    const session = await okJson<Session>(sessionOf(b, user.cookie), 'session on B');
    expect(session.userInfo?.id).toBe(user.id);
    expect(session.authToken).toBeTruthy();
    expect((await me(b, session.authToken!)).status).toBe(200);
    expect((await me(b, user.token)).status).toBe(200);
    expect((await b.trpc(user.token).users.me.query()).id).toBe(user.id);
  });

  test('a password sign-in through B gives a session A honours', async () => {
    const response = await signIn(b, user.name, user.password, '192.0.2.50');
    const session = await okJson<Session>(response, 'sign in on B');
    const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect((await okJson<Session>(sessionOf(a, cookie), 'session on A')).userInfo?.id).toBe(user.id);
    expect((await me(a, session.authToken!)).status).toBe(200);
  });

  test('an API token made on B works on A; revoked on A, B refuses it at its next request', async () => {
    const created = await okJson<{ session: { id: string }; token: string }>(b.fetch('/api/users/me/sessions', { method: 'POST', token: user.token, json: {} }), 'API token on B');
    expect((await me(a, created.token)).status).toBe(200);
    const listed = await okJson<{ id: string }[]>(a.fetch('/api/users/me/sessions', { token: user.token }), 'sessions on A');
    expect(listed.map((item) => item.id)).toContain(created.session.id);
    expect((await me(b, created.token)).status).toBe(200);

    await okJson(a.fetch(`/api/users/me/sessions/${created.session.id}`, { method: 'DELETE', token: user.token }), 'revoke on A');
    for (const node of [b, a]) {
      const refused = await me(node, created.token);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { code: string }).code).toBe('wrong_auth');
    }
  });

  test('signed out through B: A refuses the token and its cookie names no session any more', async () => {
    const response = await signIn(a, user.name, user.password, '192.0.2.51');
    const session = await okJson<Session>(response, 'sign in on A');
    const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect((await me(b, session.authToken!)).status).toBe(200);

    await okJson(b.fetch('/api/auth/clear', { method: 'POST', token: session.authToken! }), 'sign out on B');
    expect((await me(a, session.authToken!)).status).toBe(401);
    const after = await sessionOf(a, cookie);
    expect((await okJson<Session>(after, 'session on A')).userInfo).toBeNull();
    expect(after.headers.get('set-cookie')).toStartWith('cartridge_session=;');
    // The other sessions of the user live on.
    expect((await me(a, user.token)).status).toBe(200);
  });
});
