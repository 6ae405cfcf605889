import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAKE_BUTLER_SCRIPT, FAKE_BUTLER_VERSION_STRING, fingerprintKey, installFakeButler, startFakeItchApi, type FakeButler, type FakeItchApi } from '../support/fake-itch/index.ts';

/** The test doubles of issue 18: itch.io's server-side API and butler's `push --json`, as real processes. */

const fullKey = 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0'; // unscoped, as generated in itch's settings
const profileKey = 'ProfileOnlyKey0000000000000000000000000a'; // what this product's itch sign-in holds
const otherKey = 'OtherDeveloperKey0000000000000000000000b';
const unknownKey = 'UnknownKey000000000000000000000000000000';

const developer = { id: 1001, username: 'dev', display_name: 'Dev Eloper', cover_url: 'https://img.itch.zone/dev.png' };
const games = [
  { id: 42, title: 'Moon Game', url: 'https://dev.itch.io/moon-game', cover_url: 'https://img.itch.zone/moon.png' },
  { id: 43, title: 'Sun Game', url: 'https://dev.itch.io/sun-game', cover_url: null },
];

let api: FakeItchApi;
let butler: FakeButler;
let scratch: string;
let packageDir: string;

beforeAll(() => {
  api = startFakeItchApi({
    keys: {
      [fullKey]: { user: developer, games },
      [profileKey]: { user: developer, games, scopes: ['profile:me'], oauth_application_id: 77 },
      [otherKey]: { user: { id: 2002, username: 'other' }, games: [{ id: 99, title: 'Other', url: 'https://other.itch.io/other' }], scopes: ['profile', 'wharf'] },
    },
  });
  butler = installFakeButler({ apiUrl: api.url, steps: 4, stepMs: 5 });
  scratch = mkdtempSync(join(tmpdir(), 'fake-itch-test-'));
  packageDir = join(scratch, 'package');
  mkdirSync(join(packageDir, 'bin'), { recursive: true });
  mkdirSync(join(packageDir, 'data', 'empty'), { recursive: true });
  writeFileSync(join(packageDir, 'readme.txt'), 'hello itch\n');
  writeFileSync(join(packageDir, 'bin', 'game'), '#!/bin/sh\necho moon\n');
  chmodSync(join(packageDir, 'bin', 'game'), 0o755);
  writeFileSync(join(packageDir, 'data', 'level.bin'), new Uint8Array(3000).fill(7));
  chmodSync(join(packageDir, 'data', 'level.bin'), 0o600);
  symlinkSync('bin/game', join(packageDir, 'launch'));
});

afterAll(async () => {
  await api.stop();
  butler.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

const call = (path: string, authorization?: string, init: RequestInit = {}) =>
  fetch(`${api.url}${path}`, { ...init, headers: { ...(authorization && { authorization }), ...(init.headers as Record<string, string>) } });

describe('fake itch.io API', () => {
  test('GET /profile with a Bearer key or a bare key (go-itchio) answers {user} in snake_case', async () => {
    for (const authorization of [`Bearer ${fullKey}`, fullKey]) {
      const response = await call('/profile', authorization);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { user: Record<string, unknown> };
      expect(body.user).toMatchObject({ id: 1001, username: 'dev', display_name: 'Dev Eloper', url: 'https://dev.itch.io', cover_url: 'https://img.itch.zone/dev.png', developer: true });
    }
  });

  test('GET /profile/games answers the key owner games', async () => {
    const body = (await (await call('/profile/games', `Bearer ${fullKey}`)).json()) as { games: Record<string, unknown>[] };
    expect(body.games.map((game) => [game.id, game.title, game.url, game.cover_url])).toEqual([
      [42, 'Moon Game', 'https://dev.itch.io/moon-game', 'https://img.itch.zone/moon.png'],
      [43, 'Sun Game', 'https://dev.itch.io/sun-game', null],
    ]);
    expect(body.games[0]).toMatchObject({ type: 'default', classification: 'game', user_id: 1001, user: { username: 'dev' } });
  });

  test('GET /credentials/info: an unscoped key answers only its type, a scoped one its scopes', async () => {
    expect(await (await call('/credentials/info', `Bearer ${fullKey}`)).json()).toEqual({ type: 'key' });
    expect(await (await call('/credentials/info', `Bearer ${profileKey}`)).json()).toEqual({ type: 'key', scopes: ['profile:me'], oauth_application_id: 77 });
  });

  test('an unknown or missing key is refused with 401 {errors: ["invalid key"]}', async () => {
    for (const authorization of [`Bearer ${unknownKey}`, undefined]) {
      for (const path of ['/profile', '/profile/games', '/credentials/info', '/wharf/status']) {
        const response = await call(path, authorization);
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual({ errors: ['invalid key'] });
      }
    }
  });

  test('a profile:me key reads its profile but not its games nor wharf', async () => {
    expect((await call('/profile', `Bearer ${profileKey}`)).status).toBe(200);
    const games = await call('/profile/games', `Bearer ${profileKey}`);
    expect(games.status).toBe(403);
    expect(await games.json()).toEqual({ errors: ['api key does not permit `profile:games`'] });
    const build = await call('/wharf/builds', profileKey, { method: 'POST', body: new URLSearchParams({ target: 'dev/moon-game', channel: 'linux' }) });
    expect(build.status).toBe(403);
    expect(await build.json()).toEqual({ errors: ['api key does not permit `wharf`'] });
  });

  test('a parent scope covers its subscopes (profile -> profile:games)', async () => {
    expect((await call('/profile/games', `Bearer ${otherKey}`)).status).toBe(200);
    expect(await (await call('/wharf/status', otherKey)).json()).toEqual({ success: true });
  });

  test('POST /wharf/builds creates a build on one of the key games only; channels list the head', async () => {
    const foreign = await call('/wharf/builds', otherKey, { method: 'POST', body: new URLSearchParams({ target: 'dev/moon-game', channel: 'linux' }) });
    expect(foreign.status).toBe(400);
    expect(await foreign.json()).toEqual({ errors: ['invalid game'] });

    const first = (await (await call('/wharf/builds', fullKey, { method: 'POST', body: new URLSearchParams({ target: 'dev/sun-game', channel: 'web', user_version: '0.1' }) })).json()) as { build: { id: number; parent_build?: { id: number } } };
    expect(first.build.parent_build).toBeUndefined();
    const second = (await (await call('/wharf/builds', fullKey, { method: 'POST', body: new URLSearchParams({ target: 'dev/sun-game', channel: 'web' }) })).json()) as { build: { id: number; parent_build?: { id: number } } };
    expect(second.build.parent_build).toEqual({ id: first.build.id });
    const channels = (await (await call('/wharf/channels?target=dev/sun-game', fullKey)).json()) as { channels: Record<string, { name: string; head: { id: number } }> };
    expect(Object.keys(channels.channels)).toEqual(['web']);
    expect(channels.channels.web!.head.id).toBe(second.build.id);
    expect(api.builds.find((build) => build.id === first.build.id)).toMatchObject({ gameId: 43, channel: 'web', userVersion: '0.1', keyFingerprint: fingerprintKey(fullKey) });
  });

  test('unknown paths answer 404 {errors: ["invalid api endpoint"]}', async () => {
    const response = await call('/nope', fullKey);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ errors: ['invalid api endpoint'] });
  });

  test('a revoked key is refused from then on', async () => {
    const key = 'RevokedSoon00000000000000000000000000000';
    api.setKey(key, { user: developer, games });
    expect((await call('/profile', `Bearer ${key}`)).status).toBe(200);
    api.revokeKey(key);
    expect((await call('/profile', `Bearer ${key}`)).status).toBe(401);
  });

  test('requests are recorded with how the key came and its fingerprint, never the key', async () => {
    expect(api.requests.length).toBeGreaterThan(10);
    const text = JSON.stringify(api.requests);
    for (const key of [fullKey, profileKey, otherKey, unknownKey]) expect(text).not.toContain(key);
    expect(api.requests.some((request) => request.authorization === 'bearer' && request.keyFingerprint === fingerprintKey(fullKey) && request.known)).toBe(true);
    expect(api.requests.some((request) => request.authorization === 'bare')).toBe(true);
    expect(api.requests.some((request) => request.authorization === 'none' && request.status === 401)).toBe(true);
  });
});

type Line = { type: string; time: number; [member: string]: unknown };

async function runButler(args: string[], options: { key?: string; env?: Record<string, string>; timeout?: number; bin?: string } = {}) {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: scratch, ...options.env };
  if (options.key !== undefined) env.BUTLER_API_KEY = options.key;
  const child = Bun.spawn([options.bin ?? butler.path, ...args], { env, stdout: 'pipe', stderr: 'pipe', timeout: options.timeout, killSignal: 'SIGKILL' });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  const lines = stdout
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Line);
  return { stdout, stderr, exitCode, signalCode: child.signalCode, lines };
}

describe('fake butler', () => {
  test('push --json: JSON lines, a build id, and a record of exactly the folder content with modes', async () => {
    const before = butler.records().length;
    const args = ['push', packageDir, 'Dev/Moon-Game:linux-x64', '--userversion', '1.2.3', '--json'];
    const run = await runButler(args, { key: fullKey });
    expect(run.exitCode).toBe(0);
    expect(run.lines.every((line) => typeof line.type === 'string' && Number.isInteger(line.time))).toBe(true);
    expect(run.lines.map((line) => line.type)).toEqual(['buildCreated', 'log', 'log', 'progress', 'progress', 'progress', 'progress', 'log', 'log', 'log', 'log', 'log', 'log', 'result']);
    const progress = run.lines.filter((line) => line.type === 'progress');
    expect(progress.map((line) => line.progress)).toEqual([0.25, 0.5, 0.75, 1]);
    expect(progress[0]).toMatchObject({ totalBytes: 3031, eta: expect.any(Number), bps: expect.any(Number) });
    const result = run.lines.at(-1)!;
    const created = run.lines[0]!;
    expect(result.value).toEqual({ buildId: created.buildId, channel: 'linux-x64', dryRun: false, skipped: false, reason: '' });
    // Go marshals maps in key order: so does the fake
    expect(run.stdout.split('\n')[0]).toBe(`{"buildId":${created.buildId},"channel":"linux-x64","time":${created.time},"type":"buildCreated"}`);

    const records = butler.records();
    expect(records.length).toBe(before + 1);
    const record = records.at(-1)!;
    expect(record).toMatchObject({ argv: args, target: 'dev/moon-game', channel: 'linux-x64', spec: 'Dev/Moon-Game:linux-x64', userVersion: '1.2.3', json: true, apiKeyFromEnv: true, keyFingerprint: fingerprintKey(fullKey), outcome: 'succeeded', buildId: created.buildId, apiUrl: api.url, totalBytes: 3031 });
    expect(record.files.map((file) => [file.path, file.size, file.mode.toString(8)])).toEqual([
      ['bin/game', 20, '755'],
      ['data/level.bin', 3000, '600'],
      ['readme.txt', 11, '644'],
    ]);
    expect(record.files[2]!.sha256).toBe(new Bun.CryptoHasher('sha256').update('hello itch\n').digest('hex'));
    expect(record.dirs.map((dir) => dir.path)).toEqual(['bin', 'data', 'data/empty']);
    expect(record.symlinks).toEqual([{ path: 'launch', dest: 'bin/game', mode: expect.any(Number) }]);
    expect(api.builds.find((build) => build.id === created.buildId)).toMatchObject({ gameId: 42, target: 'dev/moon-game', channel: 'linux-x64', userVersion: '1.2.3' });
  });

  test('the key comes from BUTLER_API_KEY only: never in argv, records or output', async () => {
    const run = await runButler(['push', packageDir, 'dev/moon-game:web', '--userversion', '2', '--json'], { key: fullKey });
    expect(run.exitCode).toBe(0);
    const record = butler.records().at(-1)!;
    expect(record.argv).not.toContain(fullKey);
    expect(JSON.stringify(butler.records())).not.toContain(fullKey);
    expect(run.stdout + run.stderr).not.toContain(fullKey);
    // the call butler makes: the key bare in Authorization, as go-itchio sends it
    expect(api.requests.at(-1)).toMatchObject({ method: 'POST', path: '/wharf/builds', authorization: 'bare', known: true, form: { target: 'dev/moon-game', channel: 'web', user_version: '2' } });
  });

  test('without BUTLER_API_KEY it answers as butler does with no credentials and no terminal', async () => {
    const run = await runButler(['push', packageDir, 'dev/moon-game:web', '--json']);
    expect(run.exitCode).toBe(1);
    expect(run.lines.map((line) => [line.type, line.message])).toEqual([
      ['log', 'Please set BUTLER_API_KEY to your API key, see https://itch.io/docs/butler/login.html for more info.'],
      ['error', 'No credentials and stdin is not a terminal - terminating.'],
    ]);
    expect(run.stderr).toContain('bailing out: No credentials and stdin is not a terminal - terminating.');
  });

  test('a key the API refuses: error line as butler words it, exit 1; bad-key mode says the same without asking', async () => {
    for (const [key, env] of [
      [unknownKey, {}],
      [fullKey, { FAKE_BUTLER_MODE: 'bad-key' }],
    ] as const) {
      const run = await runButler(['push', packageDir, 'dev/moon-game:web', '--json'], { key, env });
      expect(run.exitCode).toBe(1);
      const error = run.lines.at(-1)!;
      expect(error.type).toBe('error');
      const message = String(error.message).split('\n');
      expect(message[0]).toBe('itch.io API error (401): /wharf/builds: invalid key');
      expect(message).toContain('creating build on remote server');
      expect(run.lines.some((line) => line.type === 'result')).toBe(false);
      expect(butler.records().at(-1)).toMatchObject({ outcome: 'failed', buildId: null, error: expect.stringContaining('invalid key') });
    }
  });

  test('a profile:me key cannot push (the wharf scope is missing); another developer game is refused', async () => {
    const scoped = await runButler(['push', packageDir, 'dev/moon-game:web', '--json'], { key: profileKey });
    expect(scoped.exitCode).toBe(1);
    expect(String(scoped.lines.at(-1)!.message).split('\n')[0]).toBe('itch.io API error (403): /wharf/builds: api key does not permit `wharf`');
    const foreign = await runButler(['push', packageDir, 'dev/moon-game:web', '--json'], { key: otherKey });
    expect(String(foreign.lines.at(-1)!.message).split('\n')[0]).toBe('itch.io API error (400): /wharf/builds: invalid game');
  });

  test('a missing folder and bad targets fail as butler does', async () => {
    const missing = join(scratch, 'nope');
    const run = await runButler(['push', missing, 'dev/moon-game:web', '--json'], { key: fullKey });
    expect(run.exitCode).toBe(1);
    const message = String(run.lines.at(-1)!.message).split('\n');
    expect(message[0]).toBe(`lstat ${missing}: no such file or directory`);
    expect(message).toContain('walking directory to push');
    const noChannel = await runButler(['push', packageDir, 'dev/moon-game', '--json'], { key: fullKey });
    expect(noChannel.lines.at(-1)!.message).toBe('invalid spec: dev/moon-game, missing channel (examples: dev/moon-game:windows-32-beta, dev/moon-game:linux-64)');
  });

  test('fail mode: progress, then buildFailed and an error line, exit 1; the build is marked failed', async () => {
    butler.control({ mode: 'fail' });
    try {
      const run = await runButler(['push', packageDir, 'dev/moon-game:fail', '--userversion', '3', '--json'], { key: fullKey });
      expect(run.exitCode).toBe(1);
      const types = run.lines.map((line) => line.type);
      expect(types.filter((type) => type === 'progress').length).toBe(2);
      expect(types.slice(-2)).toEqual(['buildFailed', 'error']);
      expect(types).not.toContain('result');
      const failed = run.lines.at(-2)!;
      expect(api.builds.find((build) => build.id === failed.buildId)).toMatchObject({ state: 'failed', failure: { fatal: true } });
      expect(butler.records().at(-1)).toMatchObject({ outcome: 'failed', buildId: failed.buildId, channel: 'fail' });
    } finally {
      butler.control({});
    }
  });

  test('hang mode: progress, then nothing until a timeout kills it', async () => {
    const started = Date.now();
    const run = await runButler(['push', packageDir, 'dev/moon-game:hang', '--json'], { key: fullKey, env: { FAKE_BUTLER_MODE: 'hang' }, timeout: 1500 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(run.signalCode).toBe('SIGKILL');
    expect(run.lines.map((line) => line.type)).toEqual(['buildCreated', 'log', 'log', 'progress']);
    expect(butler.records().at(-1)).toMatchObject({ outcome: 'hang', channel: 'hang' });
  });

  test('-V and --version print the version on stderr (kingpin) and exit 0; `version --json` answers a result', async () => {
    for (const flag of ['-V', '--version']) {
      const run = await runButler([flag]);
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`${FAKE_BUTLER_VERSION_STRING}\n`);
    }
    const version = await runButler(['version', '--json']);
    expect(version.lines[0]).toMatchObject({ type: 'result', value: { versionString: FAKE_BUTLER_VERSION_STRING } });
  });

  test('the checked-in wrapper runs from the environment alone (no baked settings)', async () => {
    const record = join(scratch, 'wrapper-records.jsonl');
    const run = await runButler(['--json', 'push', packageDir, 'dev/sun-game:web', '--userversion=9', `--address=${api.url}`], { key: fullKey, bin: FAKE_BUTLER_SCRIPT, env: { FAKE_BUTLER_RECORD: record, FAKE_BUTLER_STEPS: '2', FAKE_BUTLER_STEP_MS: '0' } });
    expect(run.exitCode).toBe(0);
    expect(run.lines.filter((line) => line.type === 'progress').length).toBe(2);
    expect(run.lines.at(-1)).toMatchObject({ type: 'result', value: { channel: 'web' } });
    const { readButlerRecords } = await import('../support/fake-itch/index.ts');
    expect(readButlerRecords(record)).toEqual([expect.objectContaining({ target: 'dev/sun-game', userVersion: '9', apiUrl: api.url })]);
  });

  test('without an API address the wrapper refuses rather than reach the real itch.io', async () => {
    const run = await runButler(['push', packageDir, 'dev/moon-game:web', '--json'], { key: fullKey, bin: FAKE_BUTLER_SCRIPT });
    expect(run.exitCode).toBe(1);
    expect(String(run.lines.at(-1)!.message)).toContain('no API address');
  });
});
