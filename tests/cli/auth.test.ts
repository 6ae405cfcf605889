import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createApiToken, makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { cliEnv, createBranch, generatedBuild, removeDir, runCli, temporaryDir, writeBuild } from './support.ts';

let server: TestServer;
let team: Team;
let home: string;
let buildDir: string;
let serverUrl: string;

beforeAll(async () => {
  server = await startTestServer({ UPLOAD_PART_SIZE: String(1024 * 1024) });
  serverUrl = String(server.url).replace(/\/+$/, '');
  team = await makeTeam(server);
  await createBranch(server, team.owner.token, team.project.id, 'main');
  home = temporaryDir('home');
  buildDir = temporaryDir('build');
  writeBuild(buildDir, generatedBuild());
});
afterAll(async () => {
  await server.stop();
  removeDir(home);
  removeDir(buildDir);
});

describe('cartridge login and logout', () => {
  test('a wrong token is refused with exit 2 and nothing is stored', async () => {
    const env = cliEnv(join(home, 'wrong'));
    const run = await runCli(['login', '--server', serverUrl, '--token', 'not-a-token'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('refused the token');
    expect(existsSync(join(env.XDG_CONFIG_HOME!, 'cartridge', 'credentials.json'))).toBe(false);
  });

  test('a good token is stored 0600 under XDG_CONFIG_HOME and logout removes it', async () => {
    const env = cliEnv(join(home, 'good'));
    const token = await createApiToken(server, team.developer);
    const run = await runCli(['login', '--server', `${serverUrl}/`, '--token', token], env);
    expect(run.code).toBe(0);
    const path = join(env.XDG_CONFIG_HOME!, 'cartridge', 'credentials.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await Bun.file(path).json()).toEqual({ server: serverUrl, token });
    const status = await runCli(['status', team.project.id], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('main');
    expect((await runCli(['logout'], env)).code).toBe(0);
    expect(existsSync(path)).toBe(false);
    const after = await runCli(['status', team.project.id], env);
    expect(after.code).toBe(2);
    expect(after.stderr).toContain('not signed in');
  });

  test('login reads CARTRIDGE_TOKEN and asks when there is none', async () => {
    const token = await createApiToken(server, team.tester);
    const fromEnv = await runCli(['login', '--server', serverUrl], cliEnv(join(home, 'env'), { CARTRIDGE_TOKEN: token }));
    expect(fromEnv.code).toBe(0);
    const { main } = await import('../../src/cli/main.ts');
    let prompt = '';
    const code = await main(['login', '--server', serverUrl], {
      env: cliEnv(join(home, 'prompt')),
      stdout: () => {},
      stderr: () => {},
      readLine: async (text) => {
        prompt = text;
        return `${token}\n`;
      },
    });
    expect(code).toBe(0);
    expect(prompt).toBe('API token: ');
  });
});

describe('cartridge exit codes', () => {
  async function pushAs(token: string, target = `${team.project.id}/main`, extra: string[] = []) {
    return runCli(['push', buildDir, target, '--tags', 'os:linux', '--entrypoint', 'game.x86_64', ...extra], cliEnv(join(home, 'push'), { CARTRIDGE_SERVER: serverUrl, CARTRIDGE_TOKEN: token }));
  }

  test('a tester may not push: exit 2, and nothing was created', async () => {
    const run = await pushAs(await createApiToken(server, team.tester));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('insufficient_privileges');
    const packages = (await (await server.fetch(`/api/projects/${team.project.id}/packages`, { token: team.owner.token })).json()) as unknown[];
    expect(packages).toEqual([]);
  });

  test('an outsider sees no such project (exit 3); an unknown branch is exit 3 too', async () => {
    expect((await pushAs(await createApiToken(server, team.outsider))).code).toBe(3);
    const developer = await createApiToken(server, team.developer);
    const run = await pushAs(developer, `${team.project.id}/nope`);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("branch 'nope' not found");
  });

  test('--strict fails with exit 4 on check warnings before anything is uploaded', async () => {
    const developer = await createApiToken(server, team.developer);
    const run = await runCli(['push', buildDir, `${team.project.id}/main`, '--tags', 'os:linux', '--strict'], cliEnv(join(home, 'strict'), { CARTRIDGE_SERVER: serverUrl, CARTRIDGE_TOKEN: developer }));
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('warning: No start file is set');
  });

  test('usage errors are exit 1: unknown command, unknown option, bad tags, bad target', async () => {
    const env = cliEnv(join(home, 'usage'));
    expect((await runCli(['frobnicate'], env)).code).toBe(1);
    expect((await runCli(['push', buildDir, 'p/b', '--colour'], env)).code).toBe(1);
    const tags = await runCli(['push', buildDir, 'p/b', '--tags', 'distro:ubuntu'], env);
    expect(tags.code).toBe(1);
    expect(tags.stderr).toContain('--tags');
    expect((await runCli(['push', buildDir, 'just-a-project'], env)).code).toBe(1);
    expect((await runCli(['push', join(buildDir, 'missing'), 'p/b'], env)).code).toBe(1);
    const help = await runCli(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes:');
  });

  test('an unreachable server is exit 5 after 3 tries', async () => {
    const run = await runCli(['status', 'p'], cliEnv(join(home, 'down'), { CARTRIDGE_SERVER: 'http://127.0.0.1:9', CARTRIDGE_TOKEN: 'x' }));
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('failed 3 times');
    expect(run.stderr.match(/trying again/g)).toHaveLength(2);
  });

  test('the real executable entry point maps a permission error to exit 2', async () => {
    const token = await createApiToken(server, team.tester);
    const child = Bun.spawn([process.execPath, 'src/cli/main.ts', 'push', buildDir, `${team.project.id}/main`, '--tags', 'os:linux', '--entrypoint', 'game.x86_64'], {
      cwd: join(import.meta.dir, '../..'),
      env: cliEnv(join(home, 'spawn'), { CARTRIDGE_SERVER: serverUrl, CARTRIDGE_TOKEN: token }),
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    expect(code).toBe(2);
    expect(stderr).toContain('cartridge: ');
  });
});
