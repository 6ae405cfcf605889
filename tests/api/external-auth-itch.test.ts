import { describe, expect, test } from 'bun:test';
import { generateToken } from '../../src/server/crypto/index.ts';
import { saveStartFlow } from '../../src/server/domains/auth/external/flows.ts';
import { registerUser } from '../support/accounts.ts';
import { anotherItchAppClientId } from '../support/fake-providers/itch.ts';
import {
  accountCounts,
  authorizeAt,
  callbackOf,
  expectError,
  finishedFlow,
  finishExternal,
  freshIdentity,
  linkWith,
  signInWith,
  startExternal,
  started,
  type SessionReply,
  useServerWithFakeProviders,
} from '../support/external-auth.ts';

/**
 * itch.io only links (issue 28): its implicit flow hands the browser an access token, and nothing in
 * itch.io's API tells which application a token was issued to, so a token of any other itch.io
 * application (or an API key) would sign in as the account it belongs to. Sign-in and registration
 * with itch.io are refused at every step; linking to a signed-in account, for display, still works.
 */
const setup = useServerWithFakeProviders();

const linkOnly = { code: 'wrong_provider', message: 'itch.io can only be linked to an account here, not used to sign in or register', details: { provider: 'itch', reason: 'link_only' } };

/** What another itch.io application (a game asking profile:me, say) receives for the account the fake approves. */
async function tokenOfAnotherApp(): Promise<string> {
  const url = new URL('/user/oauth', setup.fakes.origins.itch);
  url.search = new URLSearchParams({ client_id: anotherItchAppClientId, scope: 'profile:me', response_type: 'token', redirect_uri: 'https://another-game.example/callback' }).toString();
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location')!);
  expect(location.origin).toBe('https://another-game.example');
  return new URLSearchParams(location.hash.slice(1)).get('access_token')!;
}

/** The whole sign-in a holder of the token attempts (start, finish, users/auth or users/register): who it signs in as, or the first refusal. */
async function attemptWith(code: string, intent: 'login' | 'register'): Promise<{ signedInAs: string } | { refused: number; body: unknown }> {
  const start = await startExternal(setup.server, 'itch', intent);
  if (start.status !== 200) return { refused: start.status, body: await start.json() };
  const { token } = (await start.json()) as { token: string };
  const finish = await finishExternal(setup.server, { state: token, code });
  if (finish.status !== 200) return { refused: finish.status, body: await finish.json() };
  const finished = (await finish.json()) as { token: string; hasUser: boolean };
  const step = await setup.server.fetch(`/api/users/${finished.hasUser ? 'auth' : 'register'}?token=${encodeURIComponent(finished.token)}`, { method: 'POST' });
  if (step.status !== 200) return { refused: step.status, body: await step.json() };
  return { signedInAs: ((await step.json()) as SessionReply).userInfo.id };
}

/** A password user who linked an itch.io account with this instance's own flow. */
async function victimWithItch() {
  const victim = await registerUser(setup.server);
  const identity = freshIdentity('itch');
  setup.fakes.signInAs('itch', identity);
  const linking = await finishedFlow(setup.server, 'itch', 'link', victim.token);
  expect(linking).toMatchObject({ hasUser: false, intent: 'link' });
  expect((await linkWith(setup.server, linking.token, victim.token)).status).toBe(200);
  return { victim, identity };
}

test('GET /api/instance offers itch.io for linking only', async () => {
  const info = await (await setup.server.fetch('/api/instance')).json();
  expect(info.signInProviders).not.toContain('itch');
  expect(info.linkProviders).toContain('itch');
});

describe('a token issued to another itch.io application', () => {
  test('never signs in as the account that linked it, on REST or tRPC; linking it elsewhere is name_conflict; nothing changes', async () => {
    const { victim, identity } = await victimWithItch();
    setup.fakes.signInAs('itch', identity);
    const stolen = await tokenOfAnotherApp();
    const attacker = await registerUser(setup.server);
    const before = await accountCounts(setup.server);

    for (const intent of ['login', 'register'] as const) {
      const outcome = await attemptWith(stolen, intent);
      const shown = 'signedInAs' in outcome ? { signedInAs: outcome.signedInAs === victim.id ? 'the victim' : outcome.signedInAs } : outcome;
      expect({ intent, ...shown }).toEqual({ intent, refused: 400, body: linkOnly });
      const failure = await setup.server.trpc().auth.externalStart.mutate({ provider: 'itch', intent }).catch((error) => error);
      expect(failure.data).toMatchObject({ code: 'wrong_provider', httpStatus: 400, details: { reason: 'link_only' } });
    }
    // Linked to the attacker's own account instead: it belongs to the victim.
    const link = await started(setup.server, 'itch', 'link', attacker.token);
    await expectError(await finishExternal(setup.server, { state: link.token, code: stolen }), 409, { code: 'name_conflict', details: { provider: 'itch', reason: 'linked_to_another_user' } });
    // No session was opened for anyone (the victim's own is the one of its registration).
    expect(await accountCounts(setup.server)).toEqual(before);
    expect((await setup.server.fetch('/api/users/me', { token: victim.token })).status).toBe(200);
  });

  test("a sign-in started before the upgrade (a stored login flow) is refused at finish, even with the instance's own token", async () => {
    const { identity } = await victimWithItch();
    setup.fakes.signInAs('itch', identity);
    const own = callbackOf('itch', await authorizeAt(await started(setup.server, 'itch', 'link', (await registerUser(setup.server)).token))).code;
    for (const code of [await tokenOfAnotherApp(), own]) {
      const token = generateToken('xs');
      await saveStartFlow(setup.server.deps.db, { token, provider: 'itch', intent: 'login', userId: null, redirectUri: `${setup.server.url}/oauth`, sealedState: setup.server.deps.keys.sealSecret('{}') });
      const before = await accountCounts(setup.server);
      await expectError(await finishExternal(setup.server, { state: token, code }), 400, linkOnly);
      expect(await accountCounts(setup.server)).toEqual(before);
    }
  });
});

describe("the instance's own itch.io flow", () => {
  test('links and lists the account (ids beyond 2^53 kept exact), and its finish tokens never sign in, before or after the link', async () => {
    const user = await registerUser(setup.server);
    const identity = { id: '12345678901234567891', login: 'big_itch', name: 'Big itch' };
    setup.fakes.signInAs('itch', identity);
    const linking = await finishedFlow(setup.server, 'itch', 'link', user.token);
    await expectError(await signInWith(setup.server, linking.token), 400, linkOnly);
    const linked = await linkWith(setup.server, linking.token, user.token);
    expect(linked.status).toBe(200);
    expect(await linked.json()).toMatchObject({ provider: 'itch', name: identity.id, title: identity.name });
    const list = await (await setup.server.fetch('/api/users/me/credentials', { token: user.token })).json();
    expect(list.map((item: { provider: string; name: string }) => [item.provider, item.name])).toEqual([
      ['itch', identity.id],
      ['password', user.name],
    ]);

    // Linking again (the account is this user's now): the finish token says hasUser, and still signs nobody in.
    const again = await finishedFlow(setup.server, 'itch', 'link', user.token);
    expect(again).toMatchObject({ hasUser: true, intent: 'link' });
    const before = await accountCounts(setup.server);
    await expectError(await signInWith(setup.server, again.token), 400, linkOnly);
    const failure = await setup.server.trpc().auth.signInExternal.mutate({ token: again.token }).catch((error) => error);
    expect(failure.data).toMatchObject({ code: 'wrong_provider', httpStatus: 400, details: { reason: 'link_only' } });
    expect(await accountCounts(setup.server)).toEqual(before);

    // The password still signs in, as before.
    const password = await setup.server.fetch('/api/auth/password', { method: 'POST', json: { name: user.name, password: user.password } });
    expect(((await password.json()) as SessionReply).userInfo.id).toBe(user.id);
  });
});

test('an itch.io link is no way in: the password beside it is the last one and stays; the link itself is removed freely', async () => {
  const { victim: user, identity } = await victimWithItch();
  const path = (provider: string, name: string) => `/api/users/me/credentials?provider=${provider}&name=${encodeURIComponent(name)}`;
  await expectError(await setup.server.fetch(path('password', user.name), { method: 'DELETE', token: user.token }), 403, {
    code: 'insufficient_privileges',
    details: { reason: 'last_sign_in_method' },
  });
  expect((await setup.server.fetch(path('itch', identity.id), { method: 'DELETE', token: user.token })).status).toBe(200);
  const list = await (await setup.server.fetch('/api/users/me/credentials', { token: user.token })).json();
  expect(list.map((item: { provider: string }) => item.provider)).toEqual(['password']);
});
