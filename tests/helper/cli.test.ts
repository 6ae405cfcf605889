import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/helper/main.ts';
import { helperHome } from '../../src/helper/paths.ts';
import { openStateStore } from '../../src/helper/state/store.ts';
import { helperMain } from './helper-process.ts';

/** The command line (in-process through main(), and once as a process) and the state file. */
let root: string;
let env: Record<string, string>;

function run(args: string[]) {
  let stdout = '';
  let stderr = '';
  const result = main(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), env });
  return result.then((exitCode) => ({ exitCode, stdout, stderr }));
}
const statePath = () => join(root, 'home', 'state.json');
const readState = () => JSON.parse(readFileSync(statePath(), 'utf8'));

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cartridge-helper-cli-'));
  env = { HOME: root, CARTRIDGE_HELPER_HOME: join(root, 'home'), CARTRIDGE_HELPER_WORKSPACE: join(root, 'Games') };
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('command line', () => {
  test('--help and --version as a process; an unknown command is exit code 2 on one line', () => {
    const help = Bun.spawnSync([process.execPath, helperMain, '--help'], { env: { ...env, PATH: process.env.PATH ?? '' } });
    expect(help.exitCode).toBe(0);
    expect(help.stdout.toString()).toContain('cartridge-helper trust ORIGIN');
    expect(help.stdout.toString()).toContain('Exit codes:');
    const version = Bun.spawnSync([process.execPath, helperMain, '--version'], { env: { ...env, PATH: process.env.PATH ?? '' } });
    expect(version.stdout.toString()).toMatch(/^cartridge-helper \d+\.\d+\.\d+\n$/);
    const unknown = Bun.spawnSync([process.execPath, helperMain, 'frobnicate'], { env: { ...env, PATH: process.env.PATH ?? '' } });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr.toString().trim().split('\n')).toHaveLength(1);
  });

  test('bad --port values are usage errors', async () => {
    for (const args of [['--port'], ['--port', 'abc'], ['--port', '70000'], ['serve', '--host', '0.0.0.0'], ['--port=-1']]) {
      const result = await run(args);
      expect(result.exitCode, args.join(' ')).toBe(2);
    }
  });

  test('trust, trusted, untrust: origins normalised, pages reduced to their origin, bad input refused', async () => {
    expect((await run(['trusted'])).stdout).toBe('');
    const added = await run(['trust', 'https://Cartridge.Example:443/projects/1']);
    expect(added).toMatchObject({ exitCode: 0, stdout: 'Trusted https://cartridge.example\n' });
    expect((await run(['trust', 'https://cartridge.example'])).stdout).toBe('Already trusted: https://cartridge.example\n');
    const plain = await run(['trust', 'http://games.lan:8080']);
    expect(plain.exitCode).toBe(0);
    expect(plain.stderr).toContain('plain http');
    expect((await run(['trust', 'http://localhost:3000'])).stderr).toBe('');
    expect((await run(['trusted'])).stdout).toBe('https://cartridge.example\nhttp://games.lan:8080\nhttp://localhost:3000\n');
    for (const bad of [['trust'], ['trust', 'cartridge.example'], ['trust', 'file:///x'], ['trust', 'null'], ['trust', 'https://user:pw@x.example'], ['trust', 'a', 'b']]) {
      const result = await run(bad);
      expect(result.exitCode, bad.join(' ')).toBe(2);
    }
    expect((await run(['untrust', 'https://cartridge.example/'])).exitCode).toBe(0);
    expect((await run(['untrust', 'https://cartridge.example'])).exitCode).toBe(1);
    expect(readState().trusted_origins).toEqual(['http://games.lan:8080', 'http://localhost:3000']);
  });

  test('workspace add, list, remove', async () => {
    const listed = await run(['workspace', 'list']);
    expect(listed.stdout).toBe(`default\t${join(root, 'Games')}\t0 workdirs\n`);
    const added = await run(['workspace', 'add', join(root, 'More Games')]);
    expect(added.exitCode).toBe(0);
    expect(existsSync(join(root, 'More Games'))).toBe(true);
    const id = /Added workspace (\S+):/.exec(added.stdout)![1]!;
    expect(readState().workspaces).toEqual([
      { id: 'default', local_path: join(root, 'Games') },
      { id, local_path: join(root, 'More Games') },
    ]);
    expect((await run(['workspace', 'add', join(root, 'More Games')])).exitCode).toBe(1);
    expect((await run(['workspace', 'add', join(root, 'More Games', 'inside')])).stderr).toContain('overlaps');
    writeFileSync(join(root, 'a-file'), '');
    expect((await run(['workspace', 'add', join(root, 'a-file')])).exitCode).toBe(1);
    expect((await run(['workspace', 'add'])).exitCode).toBe(2);
    expect((await run(['workspace', 'frob'])).exitCode).toBe(2);
    expect((await run(['workspace', 'remove', 'nope'])).exitCode).toBe(1);
    expect((await run(['workspace', 'remove', id])).exitCode).toBe(0);
    expect(existsSync(join(root, 'More Games'))).toBe(true);
    expect(readState().workspaces.map((item: { id: string }) => item.id)).toEqual(['default']);
  });

  test('a workspace holding workdirs is not removed', async () => {
    mkdirSync(join(root, 'home'), { recursive: true });
    writeFileSync(
      statePath(),
      JSON.stringify({
        version: 1,
        workspaces: [{ id: 'default', local_path: join(root, 'Games') }],
        workdirs: [{ id: 'w1', workspace_id: 'default', name: 'G', state: 'empty', entrypoint: [], size: 0 }],
        trusted_origins: [],
      }),
    );
    const result = await run(['workspace', 'remove', 'default']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('holds 1 workdir');
  });
});

describe('state file', () => {
  test('written privately (0600 in a 0700 folder), atomically: no temporary file is left', async () => {
    await run(['trust', 'https://a.example']);
    expect(statSync(statePath()).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, 'home')).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(root, 'home'))).toEqual(['state.json']);
  });

  test('concurrent read-modify-writes in one process lose nothing', async () => {
    const store = openStateStore(statePath(), join(root, 'Games'));
    await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        store.update((state) => {
          state.trusted_origins.push(`https://site${index}.example`);
        }),
      ),
    );
    expect(readState().trusted_origins).toHaveLength(40);
  });

  test('a corrupt or foreign file is refused with a clear message and left unchanged, by the commands and the server', async () => {
    mkdirSync(join(root, 'home'), { recursive: true });
    for (const text of ['{"version":1,"workspaces":[', JSON.stringify({ version: 2 }), JSON.stringify({ version: 1, workspaces: [{ id: '../x', local_path: '/' }], workdirs: [], trusted_origins: [] })]) {
      writeFileSync(statePath(), text);
      for (const args of [['trust', 'https://a.example'], ['trusted'], ['workspace', 'list']]) {
        const result = await run(args);
        expect(result.exitCode, `${args.join(' ')} on ${text}`).toBe(1);
        expect(result.stderr).toContain(`The state file ${statePath()} is not valid`);
        expect(result.stderr).toContain('left unchanged');
      }
      const serve = Bun.spawnSync([process.execPath, helperMain, '--port', '0'], { env: { ...env, PATH: process.env.PATH ?? '' }, timeout: 10_000 });
      expect(serve.exitCode).toBe(1);
      expect(serve.stderr.toString()).toContain('is not valid');
      expect(readFileSync(statePath(), 'utf8')).toBe(text);
    }
  });

  test('the platform places of the state folder', () => {
    expect(helperHome({ HOME: '/home/u' }, 'linux')).toBe('/home/u/.local/state/cartridge-helper');
    expect(helperHome({ HOME: '/home/u', XDG_STATE_HOME: '/x/state' }, 'linux')).toBe('/x/state/cartridge-helper');
    expect(helperHome({ HOME: '/Users/u' }, 'darwin')).toBe('/Users/u/Library/Application Support/Cartridge Helper');
    expect(helperHome({ HOME: 'C:\\Users\\u', APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')).toBe(join('C:\\Users\\u\\AppData\\Roaming', 'Cartridge Helper'));
    expect(helperHome({ HOME: '/home/u', CARTRIDGE_HELPER_HOME: '/elsewhere' }, 'linux')).toBe('/elsewhere');
  });
});
