import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { TRPCClientError } from '@trpc/client';
import { eq, sql } from 'drizzle-orm';
import { hashToken } from '../../src/server/crypto/index.ts';
import { externalAuthFlows } from '../../src/server/db/schema/index.ts';
import { forgetExpiredFlows } from '../../src/server/domains/auth/external/flows.ts';
import { ConfigError, configVariables, loadConfig } from '../../src/server/config.ts';
import { registerUser } from '../support/accounts.ts';
import { startFakeProviders, type FakeProviders } from '../support/fake-providers/index.ts';
import {
  accountCounts,
  authorizeAt,
  callbackOf,
  expectError,
  finishedFlow,
  finishExternal,
  freshIdentity,
  linkWith,
  registerExternally,
  registerWith,
  signInWith,
  startExternal,
  started,
} from '../support/external-auth.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The tokens of an external sign-in (spec §4): start and finish tokens are single-use, expire, belong to
 * one stage, and every refusal leaves users, credentials and sessions as they were.
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

const expired = { code: 'wrong_auth', message: 'This sign-in attempt is unknown, used or expired: start again', details: { reason: 'sign_in_attempt_expired' } };
const refusedByProvider = (provider: string) => ({ code: 'wrong_credentials', details: { provider, reason: 'provider_refused' } });

/** Runs fn and expects the account tables unchanged afterwards. */
async function changesNothing(fn: () => Promise<void>): Promise<void> {
  const before = await accountCounts(server);
  await fn();
  expect(await accountCounts(server)).toEqual(before);
}

async function flowCount(): Promise<number> {
  return (await server.deps.db.select({ id: externalAuthFlows.id }).from(externalAuthFlows)).length;
}

describe('start', () => {
  test.each([
    ['an unknown provider', 'provider=myspace&intent=login', 'Invalid `provider`'],
    ['no provider', 'intent=login', 'Invalid `provider`'],
    ['an unknown intent', 'provider=github&intent=steal', 'Invalid `intent`'],
    ['no intent', 'provider=github', 'Invalid `intent`'],
  ])('%s is 400 bad_param naming it', async (_case, query, message) => {
    const before = await flowCount();
    await expectError(await server.fetch(`/api/auth/external/start?${query}`, { method: 'POST' }), 400, { code: 'bad_param', message });
    expect(await flowCount()).toBe(before);
  });

  test('linking needs a signed-in browser session: a visitor is unauthorized, an API token refused', async () => {
    const user = await registerUser(server);
    const apiToken = (await (await server.fetch('/api/users/me/sessions', { method: 'POST', token: user.token, json: { title: 'ci' } })).json()).token as string;
    const before = await flowCount();
    await expectError(await startExternal(server, 'github', 'link'), 401, { code: 'unauthorized' });
    await expectError(await startExternal(server, 'github', 'link', apiToken), 403, { code: 'insufficient_privileges', message: 'This needs a signed-in browser session, not an API token' });
    const refused = await server.trpc(apiToken).auth.externalStart.mutate({ provider: 'github', intent: 'link' }).catch((error: unknown) => error);
    expect((refused as TRPCClientError<never>).data).toMatchObject({ code: 'insufficient_privileges' });
    expect(await flowCount()).toBe(before);
  });

  test('only the hash of the start token is stored, with the sealed PKCE verifier, for 10 minutes', async () => {
    const start = await started(server, 'github', 'login');
    expect(start.token).toMatch(/^xs_[A-Za-z0-9_-]{43}$/);
    const [row] = await server.deps.db.select().from(externalAuthFlows).where(eq(externalAuthFlows.tokenHash, hashToken(start.token)));
    expect(row).toMatchObject({ stage: 'start', provider: 'github', intent: 'login', userId: null, redirectUri: `${server.url}/oauth` });
    expect(JSON.stringify(row)).not.toContain(start.token);
    const verifier = JSON.parse(server.deps.keys.openSecret(row!.sealedState!)).codeVerifier as string;
    expect(row!.sealedState).not.toContain(verifier);
    const challenge = new URL(start.url).searchParams.get('code_challenge');
    expect(new Bun.CryptoHasher('sha256').update(verifier).digest('base64url')).toBe(challenge!);
    const lifetime = row!.expiresAt.getTime() - row!.createdAt.getTime();
    expect(lifetime).toBeGreaterThan(9.9 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(10 * 60_000 + 1000);
  });
});

describe('finish', () => {
  test('a missing or malformed token or code is 400 naming it', async () => {
    await changesNothing(async () => {
      await expectError(await server.fetch('/api/auth/external/finish?code=abc', { method: 'POST' }), 400, { code: 'bad_param', message: 'Invalid `token`' });
      await expectError(await server.fetch('/api/auth/external/finish?token=xs_abc', { method: 'POST' }), 400, { code: 'bad_param', message: 'Invalid `code`' });
      await expectError(await server.fetch('/api/auth/external/finish?token=a%20b&code=abc', { method: 'POST' }), 400, { code: 'bad_param', message: 'Invalid `token`' });
    });
  });

  test('a wrong token (never issued) is wrong_auth, and the real one still works', async () => {
    fakes.signInAs('github', freshIdentity('github'));
    const start = await started(server, 'github', 'register');
    const callback = callbackOf('github', await authorizeAt(start));
    await changesNothing(async () => {
      await expectError(await finishExternal(server, { ...callback, state: 'xs_not-a-token-anyone-issued' }), 401, expired);
    });
    expect((await finishExternal(server, callback)).status).toBe(200);
  });

  test('a replayed start token changes nothing: wrong_auth', async () => {
    fakes.signInAs('gitlab', freshIdentity('gitlab'));
    const start = await started(server, 'gitlab', 'register');
    const callback = callbackOf('gitlab', await authorizeAt(start));
    expect((await finishExternal(server, callback)).status).toBe(200);
    await changesNothing(async () => {
      const flows = await flowCount();
      await expectError(await finishExternal(server, callback), 401, expired);
      // Even with a fresh code from the provider, the spent token is spent.
      const fresh = callbackOf('gitlab', await authorizeAt(start));
      await expectError(await finishExternal(server, fresh), 401, expired);
      expect(await flowCount()).toBe(flows);
    });
  });

  test('a replayed code is refused by the provider (codes are single-use): wrong_credentials, no finish token', async () => {
    for (const provider of ['github', 'discord', 'twitch'] as const) {
      fakes.signInAs(provider, freshIdentity(provider));
      const first = await started(server, provider, 'register');
      const callback = callbackOf(provider, await authorizeAt(first));
      expect((await finishExternal(server, callback)).status).toBe(200);
      // The same code again, under a new start token of this browser.
      const second = await started(server, provider, 'register');
      await changesNothing(async () => {
        const flows = await flowCount();
        await expectError(await finishExternal(server, { code: callback.code, state: second.token }), 401, refusedByProvider(provider));
        // The start token went with the attempt; no finish token came of it.
        expect(await flowCount()).toBe(flows - 1);
      });
    }
  });

  test("a code made for another start's PKCE challenge is refused by the token endpoint (code injection)", async () => {
    for (const provider of ['github', 'gitlab', 'discord'] as const) {
      fakes.signInAs(provider, freshIdentity(provider));
      const attacker = await started(server, provider, 'register');
      const victim = await started(server, provider, 'register');
      const injected = callbackOf(provider, await authorizeAt(attacker));
      await changesNothing(async () => {
        await expectError(await finishExternal(server, { code: injected.code, state: victim.token }), 401, refusedByProvider(provider));
      });
      const tokenRequest = fakes.requests.filter((request) => request.provider === provider && request.form?.code === injected.code).at(-1)!;
      expect(tokenRequest.form!.code_verifier).toBeString();
    }
  });

  test('an expired start token changes nothing: wrong_auth', async () => {
    fakes.signInAs('discord', freshIdentity('discord'));
    const start = await started(server, 'discord', 'register');
    const callback = callbackOf('discord', await authorizeAt(start));
    await server.deps.db.update(externalAuthFlows).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(externalAuthFlows.tokenHash, hashToken(start.token)));
    await changesNothing(async () => {
      await expectError(await finishExternal(server, callback), 401, expired);
    });
    // The provider was never asked to redeem the code.
    expect(fakes.requests.some((request) => request.form?.code === callback.code)).toBe(false);
  });

  test('a finish token is not a start token, nor the reverse', async () => {
    fakes.signInAs('github', freshIdentity('github'));
    const start = await started(server, 'github', 'register');
    await changesNothing(async () => {
      await expectError(await registerWith(server, start.token), 401, expired);
      await expectError(await signInWith(server, start.token), 401, expired);
    });
    const callback = callbackOf('github', await authorizeAt(start));
    const finished = await (await finishExternal(server, callback)).json();
    await expectError(await finishExternal(server, { code: 'x', state: finished.token }), 401, expired);
    expect((await registerWith(server, finished.token)).status).toBe(200);
  });
});

describe('the step after finish', () => {
  test('a finish token is single-use: registering twice makes one account', async () => {
    fakes.signInAs('twitch', freshIdentity('twitch'));
    const finished = await finishedFlow(server, 'twitch', 'register');
    expect((await registerWith(server, finished.token)).status).toBe(200);
    await changesNothing(async () => {
      await expectError(await registerWith(server, finished.token), 401, expired);
      await expectError(await signInWith(server, finished.token), 401, expired);
    });
  });

  test('two uses at once: one wins, the other finds the token spent', async () => {
    fakes.signInAs('gitlab', freshIdentity('gitlab'));
    const finished = await finishedFlow(server, 'gitlab', 'register');
    const before = await accountCounts(server);
    const answers = await Promise.all([registerWith(server, finished.token), registerWith(server, finished.token)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
    const after = await accountCounts(server);
    expect(after).toEqual({ users: before.users + 1, credentials: before.credentials + 1, sessions: before.sessions + 1 });
  });

  test('an expired finish token changes nothing: wrong_auth', async () => {
    fakes.signInAs('steam', freshIdentity('steam'));
    const finished = await finishedFlow(server, 'steam', 'register');
    await server.deps.db.update(externalAuthFlows).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(externalAuthFlows.tokenHash, hashToken(finished.token)));
    await changesNothing(async () => {
      await expectError(await registerWith(server, finished.token), 401, expired);
    });
  });

  test('each step takes only its own tokens: register needs intent register, a link needs intent link', async () => {
    const identity = freshIdentity('github');
    const registered = await registerExternally(server, fakes, 'github', identity);
    const login = await finishedFlow(server, 'github', 'login');
    const user = await registerUser(server);
    await changesNothing(async () => {
      await expectError(await registerWith(server, login.token), 401, expired);
      await expectError(await linkWith(server, login.token, user.token), 401, expired);
    });
    // Refused uses left the token as it was.
    const session = await (await signInWith(server, login.token)).json();
    expect(session.userInfo.id).toBe(registered.userInfo.id);
  });

  test('users/auth and users/register set the cookie, so other sites may not call them (REST and tRPC); the token survives the refusal', async () => {
    fakes.signInAs('gitlab', freshIdentity('gitlab'));
    const finished = await finishedFlow(server, 'gitlab', 'register');
    await changesNothing(async () => {
      await expectError(await registerWith(server, finished.token, { headers: { 'sec-fetch-site': 'cross-site' } }), 403, { code: 'insufficient_privileges', message: 'Cross-site request refused' });
      await expectError(await signInWith(server, finished.token, { headers: { origin: 'https://evil.example' } }), 403, { code: 'insufficient_privileges' });
      const trpc = await fetch(`${server.url}/trpc/auth.registerExternal`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' },
        body: JSON.stringify({ token: finished.token }),
      });
      expect(trpc.status).toBe(403);
      expect((await trpc.json()).error.data.code).toBe('insufficient_privileges');
    });
    const response = await registerWith(server, finished.token, { headers: { 'sec-fetch-site': 'same-origin' } });
    expect(response.status).toBe(200);
  });
});

describe('configuration', () => {
  let partial: TestServer;
  beforeAll(async () => {
    partial = await startTestServer({ GITHUB_CLIENT_ID: fakes.env.GITHUB_CLIENT_ID!, GITHUB_CLIENT_SECRET: fakes.env.GITHUB_CLIENT_SECRET!, GITHUB_URL: fakes.env.GITHUB_URL!, GITHUB_API_URL: fakes.env.GITHUB_API_URL! });
  });
  afterAll(() => partial.stop());

  test('a provider without its credentials is not offered: not_supported, and GET /instance leaves it out', async () => {
    expect((await (await partial.fetch('/api/instance')).json()).signInProviders).toEqual(['github']);
    for (const provider of ['steam', 'gitlab', 'itch', 'twitch', 'discord']) {
      const response = await startExternal(partial, provider, 'login');
      expect(response.status).toBe(501);
      expect(await response.json()).toEqual({ code: 'not_supported', message: expect.stringMatching(/^Sign-in with .+ is not configured on this instance$/), details: { provider } });
    }
    expect((await startExternal(partial, 'github', 'login')).status).toBe(200);
  });

  test('a client id without its secret stops the server naming the missing one; secrets are never echoed', () => {
    const base = { SECRET_KEY: 'k'.repeat(32), DATA_DIR: server.dataDir };
    expect(() => loadConfig({ ...base, GITLAB_CLIENT_ID: 'id' })).toThrow(new ConfigError('Invalid GITLAB_CLIENT_SECRET: must be set with GITLAB_CLIENT_ID'));
    expect(() => loadConfig({ ...base, DISCORD_CLIENT_SECRET: 'secret' })).toThrow(new ConfigError('Invalid DISCORD_CLIENT_ID: must be set with DISCORD_CLIENT_SECRET'));
    expect(() => loadConfig({ ...base, TWITCH_CLIENT_ID: 'id', TWITCH_CLIENT_SECRET: 'has spaces in it' })).toThrow(new ConfigError('Invalid TWITCH_CLIENT_SECRET: must be printable ASCII without spaces'));
    expect(() => loadConfig({ ...base, STEAM_WEB_API_KEY: 'bad key' })).toThrow(new ConfigError('Invalid STEAM_WEB_API_KEY: must be printable ASCII without spaces'));
    expect(() => loadConfig({ ...base, GITLAB_URL: 'ftp://gitlab.example.com' })).toThrow(/^Invalid GITLAB_URL="ftp:\/\/gitlab.example.com": must be a URL/);
    const config = loadConfig({ ...base, GITLAB_CLIENT_ID: 'id', GITLAB_CLIENT_SECRET: 'secret', GITLAB_URL: 'https://git.example.com/gitlab/', STEAM_SIGN_IN: 'true' });
    expect(config.signIn).toEqual({
      gitlab: { clientId: 'id', clientSecret: 'secret', url: 'https://git.example.com/gitlab' },
      steam: { openidUrl: 'https://steamcommunity.com/openid/login', webApiKey: undefined, apiUrl: 'https://api.steampowered.com' },
    });
    expect(loadConfig(base).signIn).toEqual({});
    // Every variable the fakes set is one the server documents (README table, --help).
    const documented = new Set(configVariables.map(([name]) => name));
    for (const name of Object.keys(fakes.env)) expect(documented.has(name as never)).toBe(true);
  });

  test('the start reply carries no client secret', async () => {
    for (const provider of ['github', 'gitlab', 'twitch', 'discord'] as const) {
      const text = JSON.stringify(await started(server, provider, 'login'));
      expect(text).not.toContain(fakes.env[`${provider.toUpperCase()}_CLIENT_SECRET`]!);
    }
  });
});

test('the hourly sweep forgets expired tokens only', async () => {
  const live = await started(server, 'github', 'login');
  const old = await started(server, 'github', 'login');
  await server.deps.db.update(externalAuthFlows).set({ expiresAt: sql`now() - interval '1 minute'` }).where(eq(externalAuthFlows.tokenHash, hashToken(old.token)));
  expect(await forgetExpiredFlows(server.deps.db)).toBeGreaterThanOrEqual(1);
  const left = await server.deps.db.select({ tokenHash: externalAuthFlows.tokenHash }).from(externalAuthFlows);
  expect(left.map((row) => row.tokenHash)).toContain(hashToken(live.token));
  expect(left.map((row) => row.tokenHash)).not.toContain(hashToken(old.token));
});
