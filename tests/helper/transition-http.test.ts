import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { downloadUrl, uploadTree, type TreeSpec } from '../api/packages-downloads-support.ts';
import { makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startHelper, waitFor, type HelperProcess } from './helper-process.ts';
import { startSlowProxy, type SlowProxy } from './slow-proxy.ts';

/**
 * Install, update, repair, crash and resume, cancel and delete through the helper's HTTP protocol,
 * with packages pushed to the real Cartridge server and the helper downloading their signed archive
 * URLs (directly, or through a slow proxy on another trusted origin to act mid-transition).
 */
let server: TestServer;
let team: Team;
let helper: HelperProcess;
let proxy: SlowProxy;
let workdir: string;
let dir: string;

const bigA = randomBytes(2 * 1024 * 1024);
const bigB = Uint8Array.from(bigA);
bigB.set(randomBytes(64 * 1024), 1024 * 1024);
// Large enough that the engine's resume log (appended every 16 MiB of chunks) has kept some when the helper is killed.
const moreV3 = randomBytes(40 * 1024 * 1024);
const moreV4 = randomBytes(3 * 1024 * 1024);
const game = (version: string) => ({ content: `#!/bin/sh\nprintf '%s %s' "${version}" "$PWD" > "$HOME/launched.txt"\n`, executable: true });
const trees: Record<string, TreeSpec> = {
  v1: { files: { 'bin/game.sh': game('v1'), 'data/big.bin': { content: bigA }, 'readme.txt': { content: 'hello v1\n' } } },
  v2: { files: { 'bin/game.sh': game('v2'), 'data/big.bin': { content: bigB }, 'readme.txt': { content: 'hello v1\n' } } },
  v3: { files: { 'bin/game.sh': game('v3'), 'data/big.bin': { content: bigB }, 'data/more.bin': { content: moreV3 }, 'readme.txt': { content: 'hello v3\n' } } },
  v4: { files: { 'bin/game.sh': game('v4'), 'data/big.bin': { content: bigB }, 'data/more.bin': { content: moreV4 }, 'readme.txt': { content: 'hello v4\n' } } },
};
const packages: Record<string, { id: string; size: number }> = {};

const transitionInput = (version: string, url: string) => ({
  id: workdir,
  package_url: url,
  project_id: team.project.id,
  branch_id: 'stable',
  version_id: version,
  package_id: packages[version]!.id,
  project_title: 'Helper Game',
  branch_title: 'stable',
  version_title: version,
  package_title: 'Linux',
  package_size: packages[version]!.size,
  package_entrypoint: ['bin', 'game.sh'],
});

const signedUrl = (version: string) => downloadUrl(server, `/api/projects/${team.project.id}/packages/${packages[version]!.id}/download`, team.owner.token);
const listed = async () => (await helper.call('workdir_list')).body.find((item: { id: string }) => item.id === workdir);

/** Every file under the workdir, as path → content. */
function filesOf(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else out[relative(folder, full)] = new Bun.CryptoHasher('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(folder);
  return out;
}
function expected(version: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, file] of Object.entries(trees[version]!.files)) out[path] = new Bun.CryptoHasher('sha256').update(file.content).digest('hex');
  return out;
}

/** Polls transition_status every 50 ms until it answers null; returns what it saw. */
async function waitForTransition(timeoutMs = 30_000): Promise<{ done: number; total: number }[]> {
  const seen: { done: number; total: number }[] = [];
  await waitFor(
    async () => {
      const status = (await helper.call('transition_status', { id: workdir })).body;
      if (status === null) return true;
      seen.push(status);
      return undefined;
    },
    timeoutMs,
    'the transition to end',
  );
  return seen;
}

async function launch(): Promise<string> {
  const marker = join(helper.root, 'launched.txt');
  rmSync(marker, { force: true });
  const reply = await helper.call('workdir_launch', { id: workdir });
  expect(reply.status).toBe(200);
  return waitFor(() => (existsSync(marker) && readFileSync(marker, 'utf8').includes(' ') ? readFileSync(marker, 'utf8') : undefined), 10_000, 'the game to start');
}

beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server);
  for (const version of Object.keys(trees)) {
    const uploaded = await uploadTree(server, team.owner, team.project.id, trees[version]!, { title: version });
    packages[version] = { id: uploaded.pkg.id, size: uploaded.archive.length };
  }
  proxy = startSlowProxy(server.url);
  helper = await startHelper({ state: { version: 1, workspaces: [], workdirs: [], trusted_origins: [] } });
  expect(helper.cli(['trust', server.url]).exitCode).toBe(0);
  expect(helper.cli(['trust', proxy.url]).exitCode).toBe(0);
  expect(helper.cli(['workspace', 'add', join(helper.root, 'Games')]).exitCode).toBe(0);
  const workspace = helper.readState().workspaces[0].id;
  workdir = (await helper.call('workdir_add', { workspace, name: 'Helper Game' }, { origin: server.url })).body.id;
  dir = join(helper.root, 'Games', 'Helper Game');
}, 60_000);

afterAll(async () => {
  await helper?.stop();
  proxy?.stop();
  await server?.stop();
});

describe('transitions over HTTP', () => {
  test('a failing first install (a forged URL) leaves the workdir damaged with download_failed', async () => {
    const url = await signedUrl('v1');
    const forged = url.replace(/\/archive\/(\d+)\/([\w-]{10})/, '/archive/$1/AAAAAAAAAA');
    expect(forged).not.toBe(url);
    expect((await helper.call('workdir_transition', transitionInput('v1', forged))).body).toEqual({ ok: true });
    await waitForTransition();
    const record = await listed();
    expect(record.state).toBe('damaged');
    expect(record.error_code).toBe('download_failed');
    expect(record.error).toContain('press Update or Install again');
    expect(filesOf(dir)).toEqual({});
  }, 30_000);

  test('install: progress by transition_status, then installed with size and entrypoint; the files equal the package', async () => {
    proxy.bytesPerSecond = 4 * 1024 * 1024;
    const reply = await helper.call('workdir_transition', transitionInput('v1', proxy.via(await signedUrl('v1'))), { origin: server.url });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('access-control-allow-origin')).toBe(server.url);
    // A second transition on the same workdir while this one runs is busy; so are repair and delete.
    const again = await helper.call('workdir_transition', transitionInput('v1', await signedUrl('v1')));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('busy');
    expect((await helper.call('workdir_delete', { id: workdir, deleteFiles: true })).body.code).toBe('busy');
    expect((await helper.call('workdir_repair', { id: workdir })).body.code).toBe('busy');
    expect((await listed()).state).toBe('installing');
    const seen = await waitForTransition();
    proxy.bytesPerSecond = Number.POSITIVE_INFINITY;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.at(-1)!.total).toBeGreaterThan(2 * 1024 * 1024);
    for (let index = 1; index < seen.length; index++) expect(seen[index]!.done).toBeGreaterThanOrEqual(seen[index - 1]!.done);
    const record = await listed();
    expect(record).toMatchObject({
      state: 'installed',
      entrypoint: ['bin', 'game.sh'],
      project_id: team.project.id,
      package_id: packages.v1!.id,
      version_title: 'v1',
      running: false,
    });
    expect(record.error).toBeUndefined();
    expect(record.size).toBe(bigA.length + 'hello v1\n'.length + game('v1').content.length);
    expect(filesOf(dir)).toEqual(expected('v1'));
    expect(statSync(join(dir, 'bin', 'game.sh')).mode & 0o100).toBe(0o100);
  }, 60_000);

  test('launch runs the installed game from its folder', async () => {
    expect(await launch()).toBe(`v1 ${join(dir, 'bin')}`);
  }, 20_000);

  test('update downloads only what changed', async () => {
    proxy.bytesSent = 0;
    proxy.requests.length = 0;
    // index_url: the index comes as a delta against the installed one (RFC 9842 dcz).
    const indexUrl = proxy.via(await downloadUrl(server, `/api/projects/${team.project.id}/packages/${packages.v2!.id}/download?filter=index`, team.owner.token));
    expect((await helper.call('workdir_transition', { ...transitionInput('v2', proxy.via(await signedUrl('v2'))), index_url: indexUrl })).status).toBe(200);
    await waitForTransition();
    expect(proxy.requests.filter((request) => request.path.includes('/index/'))).toEqual([{ path: new URL(indexUrl).pathname, encoding: 'dcz' }]);
    const record = await listed();
    expect(record).toMatchObject({ state: 'installed', version_id: 'v2', package_id: packages.v2!.id });
    expect(filesOf(dir)).toEqual(expected('v2'));
    // 64 KiB changed in a 2 MiB file: far less than the archive is fetched.
    expect(proxy.bytesSent).toBeLessThan(packages.v2!.size / 2);
    expect(await launch()).toStartWith('v2 ');
  }, 60_000);

  test('repair restores a corrupted and a deleted file, with the stored URL', async () => {
    const big = join(dir, 'data', 'big.bin');
    const bytes = readFileSync(big);
    bytes.fill(0, 100_000, 200_000);
    writeFileSync(big, bytes);
    rmSync(join(dir, 'readme.txt'));
    expect((await helper.call('workdir_repair', { id: workdir })).body).toEqual({ ok: true });
    await waitForTransition();
    expect((await listed()).state).toBe('installed');
    expect(filesOf(dir)).toEqual(expected('v2'));
  }, 60_000);

  test('repair with a dead link is download_failed (damaged); a fresh package_url repairs it', async () => {
    const big = join(dir, 'data', 'big.bin');
    const bytes = readFileSync(big);
    bytes.fill(1, 0, 50_000);
    writeFileSync(big, bytes);
    const forged = (await signedUrl('v2')).replace(/\/archive\/(\d+)\/([\w-]{10})/, '/archive/$1/BBBBBBBBBB');
    expect((await helper.call('workdir_repair', { id: workdir, package_url: forged })).status).toBe(200);
    await waitForTransition();
    let record = await listed();
    expect(record.state).toBe('damaged');
    expect(record.error_code).toBe('download_failed');
    expect(record.error).toContain('press Update or Install again');
    // An untrusted repair URL is refused before anything runs.
    expect((await helper.call('workdir_repair', { id: workdir, package_url: 'https://evil.example/x' })).body.code).toBe('untrusted_url');
    expect((await helper.call('workdir_repair', { id: workdir, package_url: await signedUrl('v2') })).status).toBe(200);
    await waitForTransition();
    record = await listed();
    expect(record.state).toBe('installed');
    expect(record.error_code).toBeUndefined();
    expect(filesOf(dir)).toEqual(expected('v2'));
  }, 60_000);

  test('kill -9 of the helper during an update: the old version stays launchable; after a restart Update resumes', async () => {
    const url = proxy.via(await signedUrl('v3'));
    proxy.bytesPerSecond = 12 * 1024 * 1024;
    proxy.bytesSent = 0;
    expect((await helper.call('workdir_transition', transitionInput('v3', url))).status).toBe(200);
    await waitFor(async () => {
      const status = (await helper.call('transition_status', { id: workdir })).body;
      return status && status.done > 30 * 1024 * 1024 ? true : undefined;
    }, 30_000, 'three quarters of the update');
    await helper.kill('SIGKILL');
    const fetchedBefore = proxy.bytesSent;
    proxy.bytesPerSecond = Number.POSITIVE_INFINITY;
    expect(filesOf(dir)).toEqual(expected('v2'));
    expect(helper.readState().workdirs[0].state).toBe('installing');

    await helper.start();
    let record = await listed();
    expect(record).toMatchObject({ state: 'installing', error_code: 'interrupted', entrypoint: ['bin', 'game.sh'] });
    expect(await launch()).toStartWith('v2 ');

    proxy.bytesSent = 0;
    expect((await helper.call('workdir_transition', transitionInput('v3', url))).status).toBe(200);
    await waitForTransition();
    record = await listed();
    expect(record).toMatchObject({ state: 'installed', version_id: 'v3' });
    expect(record.error_code).toBeUndefined();
    expect(filesOf(dir)).toEqual(expected('v3'));
    // Resumed: what the first run had fetched is not fetched again.
    // (The engine logs staged chunks every 16 MiB: at least one such batch was kept.)
    expect(fetchedBefore).toBeGreaterThan(30 * 1024 * 1024);
    expect(proxy.bytesSent).toBeLessThan(moreV3.length - 8 * 1024 * 1024);
    expect(await launch()).toStartWith('v3 ');
  }, 90_000);

  test('cancel stops an update and keeps the old files; Update later resumes', async () => {
    const url = proxy.via(await signedUrl('v4'));
    proxy.bytesPerSecond = 512 * 1024;
    expect((await helper.call('workdir_transition', transitionInput('v4', url))).status).toBe(200);
    await waitFor(async () => {
      const status = (await helper.call('transition_status', { id: workdir })).body;
      return status && status.done > 256 * 1024 ? true : undefined;
    }, 30_000, 'some of the update');
    const started = performance.now();
    expect((await helper.call('workdir_cancel', { id: workdir })).body).toEqual({ ok: true });
    expect(performance.now() - started).toBeLessThan(5000);
    proxy.bytesPerSecond = Number.POSITIVE_INFINITY;
    expect((await helper.call('transition_status', { id: workdir })).body).toBeNull();
    const record = await listed();
    expect(record).toMatchObject({ state: 'installing', error_code: 'cancelled', version_id: 'v4' });
    expect(filesOf(dir)).toEqual(expected('v3'));
    expect(await launch()).toStartWith('v3 ');
    // Repair of an interrupted update is refused: Update finishes it.
    expect((await helper.call('workdir_repair', { id: workdir })).body.code).toBe('not_installed');
    expect((await helper.call('workdir_transition', transitionInput('v4', url))).status).toBe(200);
    await waitForTransition();
    expect((await listed()).state).toBe('installed');
    expect(filesOf(dir)).toEqual(expected('v4'));
  }, 90_000);

  test('SIGTERM during a transition: the helper cancels it (resumable) and exits 0', async () => {
    proxy.bytesPerSecond = 4 * 1024 * 1024;
    expect((await helper.call('workdir_transition', transitionInput('v3', proxy.via(await signedUrl('v3'))))).status).toBe(200);
    await waitFor(async () => {
      const status = (await helper.call('transition_status', { id: workdir })).body;
      return status && status.done > 1024 * 1024 ? true : undefined;
    }, 30_000, 'some of the transition');
    const started = performance.now();
    expect(await helper.kill('SIGTERM')).toBe(0);
    expect(performance.now() - started).toBeLessThan(6000);
    proxy.bytesPerSecond = Number.POSITIVE_INFINITY;
    expect(helper.readState().workdirs[0]).toMatchObject({ state: 'installing', error_code: 'cancelled' });
    expect(filesOf(dir)).toEqual(expected('v4'));
    await helper.start();
    expect(await listed()).toMatchObject({ state: 'installing', error_code: 'cancelled' });
    expect(await launch()).toStartWith('v4 ');
  }, 60_000);

  test('delete with deleteFiles removes the package files, the private folder and the record; player files stay', async () => {
    writeFileSync(join(dir, 'save.dat'), 'player progress');
    const metaDir = join(helper.root, 'Games', '.cartridge', workdir);
    expect(existsSync(metaDir)).toBe(true);
    expect((await helper.call('workdir_delete', { id: workdir, deleteFiles: true })).body).toEqual({ ok: true });
    expect(existsSync(metaDir)).toBe(false);
    expect(filesOf(dir)).toEqual({ 'save.dat': expect.any(String) });
    expect((await helper.call('workdir_list')).body).toEqual([]);
  }, 30_000);
});
