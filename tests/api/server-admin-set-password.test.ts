import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, asc, eq, ne } from 'drizzle-orm';
import { credentials, sessions } from '../../src/server/db/schema/index.ts';
import { registerUser } from '../support/accounts.ts';
import { startChildServer, type ChildServer } from '../support/child-server.ts';
import { finishedFlow, freshIdentity, linkWith, registerExternally, type SessionReply } from '../support/external-auth.ts';
import { startFakeProviders, type FakeProviders } from '../support/fake-providers/index.ts';
import { mainScript } from '../support/server-process.ts';

/**
 * `cartridge admin set-password USER [--name NAME]` (issue 28): itch.io no longer signs in, so an
 * account made with itch.io alone before that has no way in; the operator gives it a password. The
 * password comes from stdin only, obeys the sign-up rules, and ends every session of the user. The
 * server runs in its own process: an embedded database opens in one process at a time, so on PGlite
 * the command runs while the server is stopped (on PostgreSQL, while it serves).
 */
let fakes: FakeProviders;
let server: ChildServer;
const onPostgres = Boolean(process.env.DATABASE_URL);
// Each command opens the instance database itself (PGlite: a second or two each, more on a busy machine).
const manyCommands = 180_000;

beforeAll(async () => {
  fakes = await startFakeProviders();
  // The lowest Argon2id cost, as the suite's in-process servers use (the command hashes with the instance's).
  server = await startChildServer({ env: { ...fakes.env, PASSWORD_HASH_MEMORY_KIB: '64', PASSWORD_HASH_TIME_COST: '1' } });
  await registerUser(server, 'first-admin');
});
afterAll(async () => {
  await server?.stop();
  await fakes?.close();
});

type Run = { code: number; stdout: string; stderr: string };

/** The server executable's `admin set-password ...`, stdin a pipe holding `stdin` (or closed when undefined). */
async function setPassword(args: string[], stdin?: string, env: Record<string, string> = {}): Promise<Run> {
  const child = Bun.spawn([process.execPath, mainScript, 'admin', 'set-password', ...args], {
    env: { ...server.env, ...env },
    stdin: stdin === undefined ? 'ignore' : new Blob([stdin]),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** The command on a terminal: answers each prompt once it shows; what the terminal displayed. */
async function setPasswordAtTerminal(args: string[], answers: string[]): Promise<Run> {
  let screen = '';
  let answered = 0;
  const child = Bun.spawn([process.execPath, mainScript, 'admin', 'set-password', ...args], {
    env: server.env,
    terminal: {
      cols: 200,
      rows: 24,
      data(terminal, data) {
        screen += new TextDecoder().decode(data);
        const prompts = screen.split(/New password for .*?: |Type it again: /).length - 1;
        if (prompts > answered && answered < answers.length) terminal.write(`${answers[answered++]}\r`);
      },
    },
  });
  const code = await child.exited;
  return { code, stdout: screen, stderr: '' };
}

/** Runs fn on the instance's data: on PGlite with the server stopped (started again after), on PostgreSQL while it serves. */
async function onInstanceData<T>(fn: () => Promise<T>): Promise<T> {
  if (onPostgres) return fn();
  await server.kill();
  try {
    return await fn();
  } finally {
    await server.restart();
  }
}

/** Every credential and session of the user, as rows: what a refusal must leave as it was. */
function waysInOf(userId: string) {
  return server.withDatabase(async (db) => ({
    credentials: await db.select().from(credentials).where(eq(credentials.userId, userId)).orderBy(asc(credentials.id)),
    sessions: await db.select().from(sessions).where(eq(sessions.userId, userId)).orderBy(asc(sessions.id)),
  }));
}

const signIn = (name: string, password: string) => server.fetch('/api/auth/password', { method: 'POST', json: { name, password } });

/**
 * An account as an itch.io registration before the upgrade left it: no password, an itch.io link as
 * its only credential, a browser session and an API token. Made through the API (registered with the
 * fake GitHub, itch.io linked), then the GitHub credential removed from the database.
 */
async function itchOnlyUser(): Promise<{ id: string; title: string; sessionToken: string; apiToken: string }> {
  const title = `Itch Player ${crypto.randomUUID().slice(0, 6)}`;
  const registered: SessionReply = await registerExternally(server, fakes, 'github', freshIdentity('github', title));
  const created = await server.fetch('/api/users/me/sessions', { method: 'POST', token: registered.authToken, json: { title: 'CI' } });
  expect(created.status).toBe(200);
  const apiToken = ((await created.json()) as { token: string }).token;
  fakes.signInAs('itch', freshIdentity('itch', title));
  const linking = await finishedFlow(server, 'itch', 'link', registered.authToken);
  expect((await linkWith(server, linking.token, registered.authToken)).status).toBe(200);
  const id = registered.userInfo.id;
  const left = await onInstanceData(async () => {
    await server.withDatabase((db) => db.delete(credentials).where(and(eq(credentials.userId, id), ne(credentials.provider, 'itch'))));
    return waysInOf(id);
  });
  expect(left.credentials.map((row) => row.provider)).toEqual(['itch']);
  return { id, title, sessionToken: registered.authToken, apiToken };
}

describe('cartridge admin set-password', () => {
  test('an itch.io-only user gets a sign-in name and a password: password sign-in works over HTTP, their old session and API token are refused', async () => {
    const user = await itchOnlyUser();
    expect((await server.fetch('/api/users/me', { token: user.sessionToken })).status).toBe(200);
    const password = 'correct horse battery staple';
    const result = await onInstanceData(() => setPassword([user.id, '--name', 'itch-player'], `${password}\n`));
    expect(result).toEqual({ code: 0, stdout: `${user.title} (${user.id}) can now sign in as itch-player with the new password; 2 sessions and API tokens ended.\n`, stderr: '' });

    const signedIn = await signIn('itch-player', password);
    expect(signedIn.status).toBe(200);
    expect(((await signedIn.json()) as SessionReply).userInfo.id).toBe(user.id);
    for (const token of [user.sessionToken, user.apiToken]) {
      const me = await server.fetch('/api/users/me', { token });
      expect(me.status).toBe(401);
    }
    // The sign-in name is the user's now: the command finds them by it.
    expect(await onInstanceData(() => setPassword(['itch-player'], 'another good passphrase\n'))).toMatchObject({ code: 0 });
    expect((await signIn('itch-player', password)).status).toBe(401);
    expect((await signIn('itch-player', 'another good passphrase')).status).toBe(200);
  });

  test('at a terminal the password is typed twice at a hidden prompt; it never shows', async () => {
    const member = await registerUser(server);
    const password = 'typed at the terminal';
    const result = await onInstanceData(() => setPasswordAtTerminal([member.name], [password, password]));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`New password for ${member.name} (${member.name}): `);
    expect(result.stdout).toContain(`${member.name} (${member.id}) can now sign in as ${member.name} with the new password; 1 session or API token ended.`);
    expect(result.stdout).not.toContain(password);
    expect((await server.fetch('/api/users/me', { token: member.token })).status).toBe(401);
    expect((await signIn(member.name, member.password)).status).toBe(401);
    expect((await signIn(member.name, password)).status).toBe(200);

    // Two different answers: refused, nothing changed.
    const before = await onInstanceData(() => waysInOf(member.id));
    const differ = await onInstanceData(() => setPasswordAtTerminal([member.name], ['first answer here', 'second answer here']));
    expect(differ.code).toBe(1);
    expect(differ.stdout).toContain('cartridge: The two passwords differ; nothing was changed');
    expect(await onInstanceData(() => waysInOf(member.id))).toEqual(before);
  });

  test('a password the sign-up rules refuse, a missing or taken name, bad stdin: one sentence, exit 1, nothing changed', async () => {
    const user = await itchOnlyUser();
    await onInstanceData(async () => {
      const before = await waysInOf(user.id);
      const refusals: [string[], string | undefined, string][] = [
        [[user.id, '--name', 'itch-fan'], 'short\n', 'Invalid `password`: it must be at least 8 characters'],
        [[user.id, '--name', 'itch-fan'], `${'x'.repeat(200)}${'y'.repeat(57)}\n`, 'Invalid `password`: it must be at most 256 characters'],
        [[user.id, '--name', 'itch-fan-long'], 'Itch-Fan-Long\n', 'Invalid `password`: it must not be the user name or the display name'],
        [[user.id, '--name', 'itch-fan'], ` ${user.title.toUpperCase()} \n`, 'Invalid `password`: it must not be the user name or the display name'],
        [[user.id, '--name', 'itch-fan'], '12345678\n', 'Invalid `password`: it must not be one character repeated or a simple sequence such as 12345678'],
        [[user.id, '--name', 'itch-fan'], '          \n', 'Invalid `password`: it must not be only spaces'],
        [[user.id, '--name', 'itch-fan'], 'password1\n', 'Invalid `password`: it is one of the most common passwords; choose another'],
        [[user.id], 'a good passphrase\n', `${user.title} has no sign-in name yet: give one with --name NAME`],
        [[user.id, '--name', 'first-admin'], 'a good passphrase\n', 'The user name first-admin is taken'],
        [[user.id, '--name', 'Not A Name!'], 'a good passphrase\n', 'Invalid `name`'],
        [[user.id, '--name', 'itch\u0007fan'], 'a good passphrase\n', 'Invalid `name`'],
        [['bad\u001buser'], 'a good passphrase\n', 'Invalid `user`'],
        [['x'.repeat(5000)], 'a good passphrase\n', 'Invalid `user`'],
        [[user.id, '--name', 'itch-fan'], undefined, 'No password on stdin: type it at the prompt, or pipe it in as one line; nothing was changed'],
        [[user.id, '--name', 'itch-fan'], '\n', 'No password on stdin: type it at the prompt, or pipe it in as one line; nothing was changed'],
        [[user.id, '--name', 'itch-fan'], 'a good passphrase\nsecond line\n', 'stdin holds more than one line: give the password as a single line; nothing was changed'],
        [[user.id, '--name', 'itch-fan'], 'y\n'.repeat(10_000), 'stdin holds more than one password line; nothing was changed'],
      ];
      for (const [args, stdin, sentence] of refusals) {
        const result = await setPassword(args, stdin);
        expect({ args, stdin: stdin?.slice(0, 20), ...result }).toEqual({ args, stdin: stdin?.slice(0, 20), code: 1, stdout: '', stderr: `cartridge: ${sentence}\n` });
      }
      // A user who has a sign-in name keeps it.
      const member = await setPassword(['first-admin', '--name', 'someone-else'], 'a good passphrase\n');
      expect(member).toMatchObject({ code: 1, stderr: 'cartridge: Invalid `name`: first-admin signs in as first-admin already; leave out --name\n' });
      expect(await waysInOf(user.id)).toEqual(before);
    });
    expect((await server.fetch('/api/users/me', { token: user.sessionToken })).status).toBe(200);
  }, manyCommands);

  test('an unknown user: one sentence, exit 1, stdin never read', async () => {
    for (const user of ['nobody-here', 'zzzzzzzzzzzzzzzzzzzz']) {
      expect(await onInstanceData(() => setPassword([user], 'a good passphrase\n'))).toEqual({ code: 1, stdout: '', stderr: 'cartridge: user not found\n' });
    }
    const prompted = await onInstanceData(() => setPasswordAtTerminal(['nobody-here'], []));
    expect(prompted.code).toBe(1);
    expect(prompted.stdout).not.toContain('New password');
  }, manyCommands);

  test('the password has no argv or environment form: any other argument is wrong usage (exit 2), a password in the environment is not read', async () => {
    const member = await registerUser(server);
    await onInstanceData(async () => {
      const before = await waysInOf(member.id);
      for (const args of [[member.name, 'a good passphrase'], [member.name, '--password', 'a good passphrase'], [member.name, '--password=a good passphrase'], [member.name, '--name'], ['--name', 'x', member.name], []]) {
        const result = await setPassword(args, 'a good passphrase\n');
        expect({ args, code: result.code }).toEqual({ args, code: 2 });
        expect(result.stdout).toContain('cartridge admin set-password USER [--name NAME]');
      }
      const fromEnv = await setPassword([member.name], undefined, { PASSWORD: 'a good passphrase', CARTRIDGE_PASSWORD: 'a good passphrase', NEW_PASSWORD: 'a good passphrase' });
      expect(fromEnv).toMatchObject({ code: 1, stderr: 'cartridge: No password on stdin: type it at the prompt, or pipe it in as one line; nothing was changed\n' });
      expect(await waysInOf(member.id)).toEqual(before);
    });
    expect((await signIn(member.name, member.password)).status).toBe(200);
  }, manyCommands);

  test('the server --help lists it', async () => {
    const help = Bun.spawnSync([process.execPath, mainScript, '--help'], { env: server.env });
    expect(help.stdout.toString()).toContain('cartridge admin set-password USER');
  });
});
