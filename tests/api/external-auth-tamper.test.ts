import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { credentials } from '../../src/server/db/schema/index.ts';
import type { Logger } from '../../src/server/logger.ts';
import { registerUser } from '../support/accounts.ts';
import { startFakeProviders, type FakeProviders } from '../support/fake-providers/index.ts';
import { findFreePort } from '../support/free-port.ts';
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
  started,
} from '../support/external-auth.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * What a forged, mixed-up or refused answer gets (spec §4): Steam assertions that are not Steam's or
 * not for this sign-in, itch tokens its API refuses, identities that belong to someone else, links
 * finished by another user. Each refusal is catalogued and leaves users, credentials and sessions alone.
 */
let fakes: FakeProviders;
let server: TestServer;
const logLines: string[] = [];
const captureLog: Logger = {
  info: (message, fields) => void logLines.push(JSON.stringify({ message, ...fields })),
  error: (message, fields) => void logLines.push(JSON.stringify({ message, ...fields })),
  debug: (message, fields) => void logLines.push(JSON.stringify({ message, ...fields })),
};
beforeAll(async () => {
  fakes = await startFakeProviders();
  server = await startTestServer(fakes.env, { log: captureLog });
  await registerUser(server, 'first-admin');
});
afterAll(async () => {
  await server.stop();
  await fakes.close();
});

async function changesNothing(fn: () => Promise<void>): Promise<void> {
  const before = await accountCounts(server);
  await fn();
  expect(await accountCounts(server)).toEqual(before);
}

const invalidAssertion = (what: string) => ({
  code: 'wrong_credentials',
  message: `The answer from Steam does not match this sign-in (${what}): start again`,
  details: { provider: 'steam', reason: 'invalid_assertion' },
});

/** A Steam callback's parameters (what the client sends as `code`), for a fresh start of this server. */
async function steamCallback(): Promise<{ token: string; fields: Record<string, string> }> {
  fakes.signInAs('steam', freshIdentity('steam'));
  const start = await started(server, 'steam', 'register');
  const callback = callbackOf('steam', await authorizeAt(start));
  return { token: start.token, fields: JSON.parse(callback.code) as Record<string, string> };
}

const finishSteam = (token: string, fields: Record<string, string>) => finishExternal(server, { state: token, code: JSON.stringify(fields) });

describe('Steam OpenID 2.0', () => {
  test('an assertion Steam does not confirm (check_authentication is_valid:false) is refused', async () => {
    const { token, fields } = await steamCallback();
    fakes.knobs.steam.isValid = false;
    try {
      await changesNothing(async () => {
        await expectError(await finishSteam(token, fields), 401, { code: 'wrong_credentials', details: { provider: 'steam', reason: 'provider_refused' } });
      });
    } finally {
      fakes.knobs.steam.isValid = true;
    }
  });

  test('a field changed after signing (another SteamID claimed) fails the signature check at Steam', async () => {
    const { token, fields } = await steamCallback();
    const other = '76561190000000001';
    await changesNothing(async () => {
      const forged = { ...fields, 'openid.claimed_id': `https://steamcommunity.com/openid/id/${other}`, 'openid.identity': `https://steamcommunity.com/openid/id/${other}` };
      await expectError(await finishSteam(token, forged), 401, { code: 'wrong_credentials', details: { reason: 'provider_refused' } });
    });
  });

  test.each([
    ['another site', 'https://evil.example/openid/id/76561197960287930'],
    ['too few digits', 'https://steamcommunity.com/openid/id/7656119796028'],
    ['http', 'http://steamcommunity.com/openid/id/76561197960287930'],
    ['a vanity path', 'https://steamcommunity.com/id/gaben'],
  ])('a signed claimed id of the wrong form (%s) is refused before Steam is asked', async (_case, claimedId) => {
    fakes.knobs.steam.claimedId = claimedId;
    try {
      const { token, fields } = await steamCallback();
      const checks = fakes.requests.length;
      await changesNothing(async () => {
        await expectError(await finishSteam(token, fields), 401, invalidAssertion('claimed_id'));
      });
      expect(fakes.requests.slice(checks).some((request) => request.form?.['openid.mode'] === 'check_authentication')).toBe(false);
    } finally {
      fakes.knobs.steam.claimedId = undefined;
    }
  });

  test("another sign-in's valid assertion (return_to with another state) is refused", async () => {
    const mine = await steamCallback();
    const theirs = await steamCallback();
    await changesNothing(async () => {
      await expectError(await finishSteam(mine.token, theirs.fields), 401, invalidAssertion('return_to'));
    });
  });

  test('an assertion naming another OpenID endpoint is refused, and check_authentication never goes there', async () => {
    const { token, fields } = await steamCallback();
    const checks = fakes.requests.length;
    await changesNothing(async () => {
      await expectError(await finishSteam(token, { ...fields, 'openid.op_endpoint': `${fakes.origins.github}/openid/login` }), 401, invalidAssertion('op_endpoint'));
    });
    expect(fakes.requests.slice(checks)).toEqual([]);
  });

  test('an assertion that does not sign return_to is refused', async () => {
    const { token, fields } = await steamCallback();
    await changesNothing(async () => {
      await expectError(await finishSteam(token, { ...fields, 'openid.signed': 'op_endpoint,claimed_id,identity,response_nonce,assoc_handle' }), 401, invalidAssertion('signed fields'));
    });
  });

  test.each([
    ['not JSON', 'openid.mode=id_res'],
    ['a JSON array', '["a","b"]'],
    ['numbers for fields', '{"openid.mode":1}'],
  ])('a code that is not the callback parameters as a JSON object of strings (%s) is 400 Invalid `code`', async (_case, code) => {
    fakes.signInAs('steam', freshIdentity('steam'));
    const start = await started(server, 'steam', 'register');
    await changesNothing(async () => {
      await expectError(await finishExternal(server, { state: start.token, code }), 400, { code: 'bad_param', message: 'Invalid `code`' });
    });
  });
});

describe('itch.io implicit flow (linking only)', () => {
  test('an access token its profile API refuses is refused', async () => {
    const user = await registerUser(server);
    fakes.signInAs('itch', freshIdentity('itch'));
    const start = await started(server, 'itch', 'link', user.token);
    const callback = callbackOf('itch', await authorizeAt(start));
    fakes.knobs.itch.refuseTokens = true;
    try {
      await changesNothing(async () => {
        await expectError(await finishExternal(server, callback), 401, { code: 'wrong_credentials', message: 'itch.io did not confirm this sign-in: start again', details: { provider: 'itch', reason: 'provider_refused' } });
      });
    } finally {
      fakes.knobs.itch.refuseTokens = false;
    }
  });

  test('a made-up access token is refused', async () => {
    const user = await registerUser(server);
    const start = await started(server, 'itch', 'link', user.token);
    await changesNothing(async () => {
      await expectError(await finishExternal(server, { state: start.token, code: 'made-up-token' }), 401, { code: 'wrong_credentials', details: { reason: 'provider_refused' } });
    });
  });
});

describe('whose identity it is', () => {
  test('an identity linked to another user cannot be linked: name_conflict at finish, and nothing changes', async () => {
    const identity = freshIdentity('github');
    const owner = await registerExternally(server, fakes, 'github', identity);
    const other = await registerUser(server);
    fakes.signInAs('github', identity);
    const start = await started(server, 'github', 'link', other.token);
    const callback = callbackOf('github', await authorizeAt(start));
    await changesNothing(async () => {
      await expectError(await finishExternal(server, callback), 409, {
        code: 'name_conflict',
        message: 'This GitHub account is linked to another user',
        details: { provider: 'github', reason: 'linked_to_another_user' },
      });
    });
    const [row] = await server.deps.db.select().from(credentials).where(and(eq(credentials.provider, 'github'), eq(credentials.name, identity.id)));
    expect(row!.userId).toBe(owner.userInfo.id);
  });

  test('...nor when it was linked elsewhere between finish and the link', async () => {
    const identity = freshIdentity('discord');
    const user = await registerUser(server);
    fakes.signInAs('discord', identity);
    const linking = await finishedFlow(server, 'discord', 'link', user.token);
    await registerExternally(server, fakes, 'discord', identity);
    await changesNothing(async () => {
      await expectError(await linkWith(server, linking.token, user.token), 409, { code: 'name_conflict', details: { reason: 'linked_to_another_user' } });
    });
  });

  test('a link finished by another signed-in user is refused; the user who started it still can', async () => {
    const starter = await registerUser(server);
    const intruder = await registerUser(server);
    const identity = freshIdentity('gitlab');
    fakes.signInAs('gitlab', identity);
    const linking = await finishedFlow(server, 'gitlab', 'link', starter.token);
    const apiToken = (await (await server.fetch('/api/users/me/sessions', { method: 'POST', token: starter.token, json: {} })).json()).token as string;
    await changesNothing(async () => {
      await expectError(await linkWith(server, linking.token, intruder.token), 403, {
        code: 'insufficient_privileges',
        message: 'This link was started by another user',
        details: { reason: 'started_by_another_user' },
      });
      await expectError(await linkWith(server, linking.token, apiToken), 403, { code: 'insufficient_privileges' });
      await expectError(await server.fetch(`/api/users/me/credentials?token=${linking.token}`, { method: 'POST' }), 401, { code: 'unauthorized' });
    });
    expect((await linkWith(server, linking.token, starter.token)).status).toBe(200);
  });

  test('signing in with an account nobody registered is wrong_credentials at finish (never matched by e-mail or name)', async () => {
    const user = await registerUser(server);
    // Same login as the password user's name: still a stranger.
    fakes.signInAs('twitch', { ...freshIdentity('twitch'), login: user.name, name: user.name });
    const start = await started(server, 'twitch', 'login');
    const callback = callbackOf('twitch', await authorizeAt(start));
    await changesNothing(async () => {
      await expectError(await finishExternal(server, callback), 401, {
        code: 'wrong_credentials',
        message: 'No account signs in with this Twitch account: register with it first',
        details: { provider: 'twitch', reason: 'no_account' },
      });
    });
  });

  test('a user deleted between finish and sign-in: wrong_credentials no_account', async () => {
    const identity = freshIdentity('github');
    const registered = await registerExternally(server, fakes, 'github', identity);
    const login = await finishedFlow(server, 'github', 'login');
    expect((await server.fetch('/api/users/me', { method: 'DELETE', token: registered.authToken })).status).toBe(200);
    await changesNothing(async () => {
      await expectError(await server.fetch(`/api/users/auth?token=${login.token}`, { method: 'POST' }), 401, { code: 'wrong_credentials', details: { reason: 'no_account' } });
    });
  });
});

describe('what providers say is cleaned before it is shown', () => {
  test('titles lose control and invisible characters and are cut to 64; only http(s) addresses are kept', async () => {
    const identity = { id: '424242', login: 'mallory', name: `\u202eevil\u0007 ${'x'.repeat(100)}`, profileUrl: 'javascript:alert(1)', avatarUrl: 'data:text/html,<script>alert(1)</script>' };
    const session = await registerExternally(server, fakes, 'github', identity);
    expect(session.userInfo.title).toBe(`evil ${'x'.repeat(59)}`);
    const [row] = await server.deps.db.select().from(credentials).where(and(eq(credentials.provider, 'github'), eq(credentials.name, '424242')));
    expect(row).toMatchObject({ title: `evil ${'x'.repeat(59)}`, profileUrl: null, profilePictureUrl: null });
  });
});

test('hostile codes never make a 500 with any provider (REST and tRPC), and make no account', async () => {
  const hostile = ['a\u0000b', '\u001b[31m\u202e', 'x'.repeat(16_384), '{"$ne":null}', '["a","b"]', 'a,b', `${'['.repeat(5000)}${']'.repeat(5000)}`, '{"openid.mode":{"x":1}}', '%00', '   '];
  const linker = await registerUser(server);
  await changesNothing(async () => {
    for (const provider of ['steam', 'github', 'gitlab', 'itch', 'twitch', 'discord'] as const) {
      // itch.io only links: its flows start for the signed-in user.
      const begin = () => (provider === 'itch' ? started(server, provider, 'link', linker.token) : started(server, provider, 'register'));
      for (const code of hostile) {
        const start = await begin();
        const response = await finishExternal(server, { state: start.token, code });
        expect(response.status < 500 ? 'answered' : `${provider} ${JSON.stringify(code.slice(0, 40))} → ${response.status} ${await response.text()}`).toBe('answered');
        const viaTrpc = await begin();
        const failure = await server.trpc().auth.externalFinish.mutate({ token: viaTrpc.token, code }).then(() => undefined, (error: unknown) => error as { data?: { httpStatus?: number } });
        expect(failure?.data?.httpStatus ?? 0).toBeLessThan(500);
      }
    }
  });
}, 60_000);

describe('a provider that fails', () => {
  let broken: TestServer;
  let unreachable: TestServer;
  beforeAll(async () => {
    const closedPort = await findFreePort();
    broken = await startTestServer({ ...fakes.env, GITHUB_CLIENT_SECRET: 'not-the-secret' }, { log: captureLog });
    unreachable = await startTestServer({ ...fakes.env, DISCORD_URL: `http://127.0.0.1:${closedPort}` }, { log: captureLog });
  });
  afterAll(() => Promise.all([broken.stop(), unreachable.stop()]));

  test('wrong client credentials are the operator\'s to fix: unexpected_error, logged without secrets, codes or tokens', async () => {
    fakes.signInAs('github', freshIdentity('github'));
    const start = await started(broken, 'github', 'register');
    const callback = callbackOf('github', await authorizeAt(start));
    const before = logLines.length;
    await expectError(await finishExternal(broken, callback), 500, { code: 'unexpected_error', message: 'GitHub answered in an unexpected way: try again later', details: { provider: 'github', reason: 'provider_error' } });
    const logged = logLines.slice(before).join('\n');
    expect(logged).toContain('external sign-in failed');
    expect(logged).toContain('client credentials');
    for (const secret of [callback.code, start.token, 'not-the-secret', fakes.env.GITHUB_CLIENT_SECRET!]) expect(logged).not.toContain(secret);
  });

  test.each([
    ['huge', 'answer too large'],
    ['not_json', 'no user in /profile'],
  ] as const)('a provider answer that breaks its documentation (%s) is the provider\'s fault: 502 provider_error, on REST and tRPC, nothing changes', async (answer, problem) => {
    const user = await registerUser(server);
    fakes.knobs.itch.answer = answer;
    try {
      await changesNothing(async () => {
        const start = await started(server, 'itch', 'link', user.token);
        const callback = callbackOf('itch', await authorizeAt(start));
        const before = logLines.length;
        await expectError(await finishExternal(server, callback), 502, { code: 'unexpected_error', message: 'itch.io answered in an unexpected way: try again later', details: { provider: 'itch', reason: 'provider_error' } });
        expect(logLines.slice(before).join('\n')).toContain(problem);
        const again = await started(server, 'itch', 'link', user.token);
        const failure = await server.trpc().auth.externalFinish.mutate({ token: again.token, code: callbackOf('itch', await authorizeAt(again)).code }).catch((error) => error);
        expect(failure.data).toMatchObject({ code: 'unexpected_error', httpStatus: 502, details: { reason: 'provider_error' } });
      });
    } finally {
      fakes.knobs.itch.answer = undefined;
    }
  });

  test('an unreachable provider is timeout (503)', async () => {
    const start = await started(unreachable, 'discord', 'register');
    const url = new URL(start.url);
    expect(url.searchParams.get('state')).toBe(start.token);
    await expectError(await finishExternal(unreachable, { state: start.token, code: 'some-code' }), 503, { code: 'timeout', message: 'Discord did not answer: try again later', details: { provider: 'discord', reason: 'provider_unavailable' } });
  });

  test('no log line of the whole file carries a client secret, a code or an access token', async () => {
    const everything = logLines.join('\n');
    for (const [name, value] of Object.entries(fakes.env)) if (/SECRET|KEY/.test(name)) expect(everything).not.toContain(value);
    for (const request of fakes.requests) {
      if (request.query.code) expect(everything).not.toContain(request.query.code);
      if (request.form?.code) expect(everything).not.toContain(request.form.code);
    }
  });
});

describe('registration rules of the instance apply', () => {
  let closed: TestServer;
  beforeAll(async () => {
    closed = await startTestServer({ ...fakes.env, REGISTRATION: 'closed' });
  });
  afterAll(() => closed.stop());

  test('the first account made with a provider is the administrator; with REGISTRATION=closed nobody after it', async () => {
    const first = await registerExternally(closed, fakes, 'steam', freshIdentity('steam'));
    expect(first.userPrivileges.sort()).toEqual(['cloud_play', 'create_project', 'store_publish']);
    expect((await (await closed.fetch('/api/users/me', { token: first.authToken })).json()).isAdmin).toBe(true);

    fakes.signInAs('github', freshIdentity('github'));
    const finished = await finishedFlow(closed, 'github', 'register');
    const before = await accountCounts(closed);
    await expectError(await registerWith(closed, finished.token), 403, { code: 'insufficient_privileges', message: 'Registration is closed on this instance' });
    expect(await accountCounts(closed)).toEqual(before);
  });
});
