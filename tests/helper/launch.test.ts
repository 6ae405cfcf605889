import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, rmSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHelper, waitFor, type HelperProcess } from './helper-process.ts';
import { writeExecutable } from '../support/executable-file.ts';

/**
 * workdir_launch with a test game placed in workdirs directly (records written as an install would
 * leave them: state installed, an index hash, the entrypoint), so it needs no server or engine.
 */
let helper: HelperProcess;
let root: string;
const hash = 'a'.repeat(64);

const record = (id: string, name: string, entrypoint: string[], extra: Record<string, unknown> = {}) => ({
  id,
  workspace_id: 'default',
  name,
  state: 'installed',
  entrypoint,
  size: 100,
  index_hash: hash,
  ...extra,
});

function game(name: string, files: Record<string, string>): string {
  const dir = join(root, 'Games', name);
  mkdirSync(dir, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cartridge-helper-launch-'));
  const outside = join(root, 'outside.sh');
  writeExecutable(outside, '#!/bin/sh\ntouch "$0.ran"\n');
  // The game writes its working folder and pid, waits for a stop file (at most 10 s), then exits.
  game('Runner', {
    'bin/run.sh': '#!/bin/sh\npwd > ../started.txt\necho $$ >> ../started.txt\ni=0\nwhile [ ! -f ../stop ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done\necho done > ../finished.txt\n',
  });
  game('Linked', {});
  symlinkSync(outside, join(root, 'Games', 'Linked', 'start.sh'));
  game('Inner', { 'real/start.sh': '#!/bin/sh\necho inner > "$(dirname "$0")/../inner-ran.txt"\n' });
  symlinkSync('real/start.sh', join(root, 'Games', 'Inner', 'start.sh'));
  game('Escape', {});
  symlinkSync('..', join(root, 'Games', 'Escape', 'up'));
  game('Folder', { 'sub/file.txt': 'x' });
  game('Text', { 'readme.txt': 'not a program' });
  const state = {
    version: 1,
    workspaces: [{ id: 'default', local_path: join(root, 'Games') }],
    workdirs: [
      record('runner', 'Runner', ['bin', 'run.sh']),
      record('linked', 'Linked', ['start.sh']),
      record('inner', 'Inner', ['start.sh']),
      record('escape', 'Escape', ['up', 'outside.sh']),
      record('folder', 'Folder', ['sub']),
      record('missing', 'Folder', ['nothing.sh']),
      record('noentry', 'Folder', []),
      record('text', 'Text', ['readme.txt']),
      // Left installing by a crash, but no receipt in its private folder: the start-up recovery finds nothing installed.
      record('updating', 'Runner', ['bin', 'run.sh'], { state: 'installing', target: { entrypoint: ['new.sh'], package_size: 5 } }),
    ],
    trusted_origins: [],
  };
  helper = await startHelper({ state, env: { HOME: root } });
});
afterAll(async () => {
  writeFileSync(join(root, 'Games', 'Runner', 'stop'), '');
  await helper.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('workdir_launch', () => {
  test('starts the entrypoint detached from its own folder, made executable; running while it runs', async () => {
    const script = join(root, 'Games', 'Runner', 'bin', 'run.sh');
    expect(statSync(script).mode & 0o111).toBe(0);
    const reply = await helper.call('workdir_launch', { id: 'runner' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true, pid: expect.any(Number) });
    const started = join(root, 'Games', 'Runner', 'started.txt');
    const [cwd, pid] = (await waitFor(() => (existsSync(started) && readFileSync(started, 'utf8').split('\n').length >= 3 ? readFileSync(started, 'utf8') : undefined), 10_000, 'the game')).split('\n');
    expect(cwd).toBe(realpathSync(join(root, 'Games', 'Runner', 'bin')));
    expect(Number(pid)).toBe(reply.body.pid);
    expect(statSync(script).mode & 0o100).toBe(0o100);
    // Its own process group (setsid): the group id is its pid.
    const stat = readFileSync(`/proc/${reply.body.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    expect(Number(fields[2])).toBe(reply.body.pid);
    const listed = (await helper.call('workdir_list')).body.find((item: { id: string }) => item.id === 'runner');
    expect(listed.running).toBe(true);
    writeFileSync(join(root, 'Games', 'Runner', 'stop'), '');
    await waitFor(() => (existsSync(join(root, 'Games', 'Runner', 'finished.txt')) ? true : undefined), 10_000, 'the game to end');
    await waitFor(async () => ((await helper.call('workdir_list')).body.find((item: { id: string }) => item.id === 'runner').running === false ? true : undefined), 10_000, 'running false');
  });

  test('an interrupted install whose private folder holds no receipt is recovered at start as nothing installed', async () => {
    const listed = (await helper.call('workdir_list')).body.find((item: { id: string }) => item.id === 'updating');
    expect(listed).toMatchObject({ state: 'installing', error_code: 'interrupted', entrypoint: [], size: 0 });
    const reply = await helper.call('workdir_launch', { id: 'updating' });
    expect(reply.status).toBe(409);
    expect(reply.body.code).toBe('not_installed');
  });

  test('a symlink whose real path leaves the workdir is bad_entrypoint, and nothing runs', async () => {
    for (const id of ['linked', 'escape']) {
      const reply = await helper.call('workdir_launch', { id });
      expect(reply.status, id).toBe(409);
      expect(reply.body.code).toBe('bad_entrypoint');
    }
    await Bun.sleep(200);
    expect(existsSync(join(root, 'outside.sh.ran'))).toBe(false);
  });

  test('a symlink that stays inside the workdir runs', async () => {
    expect((await helper.call('workdir_launch', { id: 'inner' })).status).toBe(200);
    await waitFor(() => (existsSync(join(root, 'Games', 'Inner', 'inner-ran.txt')) ? true : undefined), 10_000, 'the inner game');
  });

  test('a folder, a missing file, no entrypoint and a file that is not a program are bad_entrypoint', async () => {
    for (const id of ['folder', 'missing', 'noentry', 'text']) {
      const reply = await helper.call('workdir_launch', { id });
      expect(reply.status, id).toBe(409);
      expect(reply.body.code, id).toBe('bad_entrypoint');
    }
  });

  test('an entrypoint with .. stored in the state file is refused when the file is read', async () => {
    // The state file's schema takes only plain names: a hand-edited '..' makes the file invalid, never a launch.
    const { validateStateText } = await import('./state-check.ts');
    expect(validateStateText(JSON.stringify({ version: 1, workspaces: [], workdirs: [record('x', 'X', ['..', 'outside.sh'])], trusted_origins: [] }))).toContain('entrypoint');
  });
});
