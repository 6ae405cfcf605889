/**
 * What the command line prints beside results (issue 29): the per-part counter of a push, --json
 * failures as one JSON object on stderr with the exit code unchanged, and --version.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import packageJson from '../../package.json';
import { createApiToken, makeTeam, type Team } from '../support/projects.ts';
import { startTestProxy, type TestProxy } from '../support/http-proxy.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { cliEnv, createBranch, generatedBuild, removeDir, runCli, temporaryDir, writeBuild } from './support.ts';

const PART_SIZE = 256 * 1024;
let server: TestServer;
let proxy: TestProxy;
let team: Team;
let home: string;
let buildDir: string;
let ownerEnv: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer({ UPLOAD_PART_SIZE: String(PART_SIZE) });
  proxy = startTestProxy(String(server.url).replace(/\/+$/, ''));
  team = await makeTeam(server);
  await createBranch(server, team.owner.token, team.project.id, 'main');
  home = temporaryDir('output-home');
  buildDir = temporaryDir('output-build');
  writeBuild(buildDir, generatedBuild());
  ownerEnv = cliEnv(join(home, 'owner'), { CARTRIDGE_SERVER: proxy.url, CARTRIDGE_TOKEN: await createApiToken(server, team.owner) });
});
afterAll(async () => {
  proxy.stop();
  await server.stop();
  removeDir(home);
  removeDir(buildDir);
});

type JsonFailure = { code: string; message: string; details: unknown; exitCode: number };

/** The one JSON failure a --json run printed: stderr is exactly one line, that object. */
function jsonFailure(stderr: string): JsonFailure {
  const lines = stderr.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  const parsed = JSON.parse(lines[0]!) as JsonFailure;
  expect(Object.keys(parsed).sort()).toEqual(['code', 'details', 'exitCode', 'message']);
  return parsed;
}

describe('the part counter of a push', () => {
  test('each part is acknowledged once, and k counts the acknowledged parts of n, 1 to n in order', async () => {
    // Parallel parts answered in the same moment: the counter used to read the shared record of
    // parts still being saved, printing one count twice and skipping another.
    proxy.answerPartsTogether = true;
    try {
      const run = await runCli(['push', buildDir, `${team.project.id}/main`, '--tags', 'os:linux', '--entrypoint', 'game.x86_64'], ownerEnv);
      expect(run.stderr).not.toContain('cartridge:');
      expect(run.code).toBe(0);
      const lines = [...run.stderr.matchAll(/^part (\d+) acknowledged \((\d+)\/(\d+)\)$/gm)];
      const total = Number(lines[0]![3]);
      expect(total).toBeGreaterThan(8);
      expect(lines).toHaveLength(total);
      expect(lines.map((line) => Number(line[1])).sort((a, b) => a - b)).toEqual([...Array(total).keys()]);
      expect(lines.map((line) => Number(line[2]))).toEqual([...Array(total).keys()].map((index) => index + 1));
      expect(new Set(lines.map((line) => line[3]))).toEqual(new Set([String(total)]));
    } finally {
      proxy.answerPartsTogether = false;
    }
  }, 60_000);
});

describe('--json failures', () => {
  test('a usage error is one JSON object on stderr, exit 1; the same without --json stays a sentence', async () => {
    const env = cliEnv(join(home, 'usage'));
    const json = await runCli(['push', '--json'], env);
    expect(json.code).toBe(1);
    expect(json.stdout).toBe('');
    expect(jsonFailure(json.stderr)).toEqual({ code: 'bad_param', message: expect.stringContaining('usage: cartridge push'), details: null, exitCode: 1 });
    const text = await runCli(['push'], env);
    expect(text.code).toBe(1);
    expect(text.stderr).toStartWith('cartridge: usage: cartridge push');
  });

  test('an unknown option, a wrong value and an unknown command are JSON too', async () => {
    const env = cliEnv(join(home, 'options'));
    const option = await runCli(['status', 'p', '--json', '--bogus'], env);
    expect(option.code).toBe(1);
    expect(jsonFailure(option.stderr)).toMatchObject({ code: 'bad_param', message: expect.stringContaining('--bogus'), exitCode: 1 });
    const value = await runCli(['download', 'p/b', '--format', 'rar', '--json'], env);
    expect(jsonFailure(value.stderr)).toMatchObject({ code: 'bad_param', message: "--format must be zip or archive, not 'rar'", exitCode: 1 });
    const command = await runCli(['frobnicate', '--json'], env);
    expect(command.code).toBe(1);
    expect(jsonFailure(command.stderr)).toMatchObject({ code: 'bad_param', message: 'unknown command frobnicate', exitCode: 1 });
    // Control characters in what is echoed stay inside the JSON string (escaped), on one line.
    const control = await runCli(['download', 'p/b', '--format', 'a\nb\u0000c', '--json'], env);
    expect(jsonFailure(control.stderr).message).toBe("--format must be zip or archive, not 'a\nb\u0000c'");
  });

  test('not signed in is exit 2 with code unauthorized', async () => {
    const run = await runCli(['status', 'whatever', '--json'], cliEnv(join(home, 'anonymous')));
    expect(run.code).toBe(2);
    expect(jsonFailure(run.stderr)).toMatchObject({ code: 'unauthorized', message: expect.stringContaining('not signed in'), exitCode: 2 });
  });

  test("the server's refusals keep their code and details: a wrong token, a project an outsider cannot see, a role that cannot publish", async () => {
    const wrong = await runCli(['status', team.project.id, '--json'], cliEnv(join(home, 'wrong'), { CARTRIDGE_SERVER: server.url, CARTRIDGE_TOKEN: 'not-a-token' }));
    expect(wrong.code).toBe(2);
    expect(jsonFailure(wrong.stderr)).toMatchObject({ code: expect.stringMatching(/^(wrong_auth|unauthorized)$/), exitCode: 2 });

    const outsider = cliEnv(join(home, 'outsider'), { CARTRIDGE_SERVER: server.url, CARTRIDGE_TOKEN: await createApiToken(server, team.outsider) });
    const hidden = await runCli(['status', `${team.project.id}/main`, '--json'], outsider);
    expect(hidden.code).toBe(3);
    expect(jsonFailure(hidden.stderr)).toMatchObject({ code: 'not_found', exitCode: 3 });

    const tester = cliEnv(join(home, 'tester'), { CARTRIDGE_SERVER: server.url, CARTRIDGE_TOKEN: await createApiToken(server, team.tester) });
    const push = await runCli(['push', buildDir, `${team.project.id}/main`, '--tags', 'os:linux', '--json'], tester);
    expect(push.code).toBe(2);
    expect(jsonFailure(push.stderr.split('\n').filter((line) => !line.startsWith('warning:')).join('\n'))).toMatchObject({ code: 'insufficient_privileges', exitCode: 2 });
  });

  test('--strict checks name the warnings in details, exit 4', async () => {
    // Tags no current package carries: no package to keep a start file from, so none is set.
    const run = await runCli(['push', buildDir, `${team.project.id}/main`, '--tags', 'os:linux,component:client', '--strict', '--json'], ownerEnv);
    expect(run.code).toBe(4);
    const failure = jsonFailure(run.stderr.split('\n').filter((line) => !line.startsWith('warning:')).join('\n'));
    expect(failure).toMatchObject({ code: 'checks_failed', exitCode: 4 });
    expect((failure.details as { warnings: string[] }).warnings.length).toBeGreaterThan(0);
  });

  test('a server that cannot be reached is exit 5 with the retries told and the failure as JSON last', async () => {
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
    const url = `http://127.0.0.1:${closed.port}`;
    closed.stop(true);
    const run = await runCli(['status', 'p', '--json'], cliEnv(join(home, 'offline'), { CARTRIDGE_SERVER: url, CARTRIDGE_TOKEN: 'token', CARTRIDGE_RETRY_DELAY_MS: '0' }));
    expect(run.code).toBe(5);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines.slice(0, -1).every((line) => line.includes('trying again'))).toBe(true);
    expect(jsonFailure(lines.at(-1)!)).toMatchObject({ code: 'trying_few_times_failed', details: { last: 'network', status: null }, exitCode: 5 });
  });

  test("'--json' after '--' is a positional, not the option", async () => {
    const run = await runCli(['status', '--', '--json'], cliEnv(join(home, 'dashdash')));
    expect(run.code).toBe(2);
    expect(run.stderr).toStartWith('cartridge: not signed in');
  });
});

describe('--version', () => {
  test('--version and -V print the version and exit 0', async () => {
    for (const flag of ['--version', '-V']) {
      const run = await runCli([flag], cliEnv(join(home, 'version')));
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`cartridge ${packageJson.version}\n`);
      expect(run.stderr).toBe('');
    }
  });

  test('--help names it', async () => {
    const run = await runCli(['--help'], cliEnv(join(home, 'help')));
    expect(run.stdout).toContain('--version, -V');
    expect(run.stdout).toContain('{"code","message","details","exitCode"}');
  });
});
