import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readAllFiles, readArchive } from '../../src/shared/archive/index.ts';
import type { PushState } from '../../src/cli/push-state.ts';
import type { TestProject } from '../support/projects.ts';
import { startTestProxy, type TestProxy } from '../support/http-proxy.ts';
import { noise } from '../support/noise.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { cliEnv, generatedBuild, pushTarget, removeDir, runCli, temporaryDir, writeBuild } from './support.ts';

const PART_SIZE = 256 * 1024;
let server: TestServer;
let proxy: TestProxy;
let project: TestProject;
let home: string;
let buildDir: string;
let env: Record<string, string>;
const files = generatedBuild();

beforeAll(async () => {
  server = await startTestServer({ UPLOAD_PART_SIZE: String(PART_SIZE) });
  proxy = startTestProxy(String(server.url).replace(/\/+$/, ''));
  const target = await pushTarget(server);
  project = target.project;
  home = temporaryDir('home');
  buildDir = temporaryDir('build');
  writeBuild(buildDir, files);
  env = cliEnv(home, { CARTRIDGE_SERVER: proxy.url, CARTRIDGE_TOKEN: target.apiToken });
});
afterAll(async () => {
  proxy.stop();
  await server.stop();
  removeDir(home);
  removeDir(buildDir);
});

/** Reads the subprocess's stderr until `pattern` shows up; resolves with what was read. */
async function waitForOutput(stream: ReadableStream<Uint8Array>, pattern: RegExp): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const piece of stream as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(piece, { stream: true });
    if (pattern.test(text)) return text;
  }
  throw new Error(`the push ended before ${pattern}: ${text}`);
}

function readState(): PushState {
  const uploads = join(home, 'cache', 'cartridge', 'uploads');
  const [slot] = readdirSync(uploads);
  return JSON.parse(require('node:fs').readFileSync(join(uploads, slot!, 'state.json'), 'utf8')) as PushState;
}

describe('cartridge push resume', () => {
  test('a push killed after its first acknowledged part sends only the missing parts when run again', async () => {
    proxy.partDelayMs = 150;
    proxy.reset();
    const child = Bun.spawn([process.execPath, 'src/cli/main.ts', 'push', buildDir, `${project.id}/main`, '--tags', 'os:linux', '--entrypoint', 'game.x86_64'], {
      cwd: join(import.meta.dir, '../..'),
      env,
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const seen = await waitForOutput(child.stderr, /part \d+ acknowledged/);
    child.kill('SIGKILL');
    expect(await child.exited).not.toBe(0);
    expect(seen).toContain('packed 5 files');

    const state = readState();
    const totalParts = Math.ceil(state.archiveSize / PART_SIZE);
    const acknowledged = state.upload!.parts.length;
    expect(acknowledged).toBeGreaterThanOrEqual(1);
    expect(acknowledged).toBeLessThan(totalParts);

    proxy.partDelayMs = 0;
    proxy.reset();
    const resumed = await runCli(['push', buildDir, `${project.id}/main`, '--tags', 'os:linux', '--entrypoint', 'game.x86_64', '--json'], env);
    expect(resumed.stderr).not.toContain('cartridge:');
    expect(resumed.code).toBe(0);
    const result = resumed.json();
    expect(result).toMatchObject({ resumed: true, package: state.upload!.packageId, totalParts, sentParts: totalParts - acknowledged });
    const acknowledgedBytes = state.upload!.parts.reduce((sum, part) => sum + part.size, 0);
    expect(proxy.partRequests).toBe(totalParts - acknowledged);
    expect(proxy.partBytes).toBe(state.archiveSize - acknowledgedBytes);
    expect(readdirSync(join(home, 'cache', 'cartridge', 'uploads'))).toEqual([]);

    const download = await runCli(['download', `${project.id}/main`, '--format', 'archive', '-o', join(home, 'out.crt')], env);
    expect(download.code).toBe(0);
    const contents = await readAllFiles(await readArchive(Bun.file(join(home, 'out.crt')).stream()));
    for (const [name, file] of Object.entries(files)) expect(Bun.hash(contents.get(name)!)).toBe(Bun.hash(file.bytes));
  }, 60_000);

  test('a resumed push whose folder changed meanwhile starts over with the new content', async () => {
    proxy.partDelayMs = 150;
    const child = Bun.spawn([process.execPath, 'src/cli/main.ts', 'push', buildDir, `${project.id}/main`, '--tags', 'os:linux,arch:x86', '--entrypoint', 'game.x86_64'], {
      cwd: join(import.meta.dir, '../..'),
      env,
      stdout: 'pipe',
      stderr: 'pipe',
    });
    await waitForOutput(child.stderr, /part \d+ acknowledged/);
    child.kill('SIGKILL');
    await child.exited;
    const before = readState();
    await Bun.write(join(buildDir, 'README.txt'), 'Changed after the interruption.\n');
    proxy.partDelayMs = 0;
    const run = await runCli(['push', buildDir, `${project.id}/main`, '--tags', 'os:linux,arch:x86', '--entrypoint', 'game.x86_64', '--json'], env);
    expect(run.stderr).not.toContain('cartridge:');
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ resumed: false });
    expect(run.json().package).not.toBe(before.upload!.packageId);
    // The abandoned upload was deleted, not left behind.
    const stale = await server.fetch(`/api/projects/${project.id}/packages/${before.upload!.packageId}`, { headers: { authorization: `Bearer ${env.CARTRIDGE_TOKEN}` } });
    expect(stale.status).toBe(404);
  }, 60_000);

  test('Ctrl-C stops a push with exit 130, keeping what the server acknowledged for the next run', async () => {
    // A patch of several parts, so the interruption lands in the middle of it.
    await Bun.write(join(buildDir, 'data/level2.pak'), noise(700_000, 77));
    proxy.partDelayMs = 150;
    const args = ['push', buildDir, `${project.id}/main`, '--tags', 'os:linux', '--entrypoint', 'game.x86_64'];
    const child = Bun.spawn([process.execPath, 'src/cli/main.ts', ...args], { cwd: join(import.meta.dir, '../..'), env, stdout: 'pipe', stderr: 'pipe' });
    await waitForOutput(child.stderr, /part \d+ acknowledged/);
    child.kill('SIGINT');
    expect(await child.exited).toBe(130);
    const state = readState();
    expect(state.upload!.parts.length).toBeGreaterThanOrEqual(1);
    proxy.partDelayMs = 0;
    proxy.reset();
    const run = await runCli([...args, '--json'], env);
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ resumed: true, package: state.upload!.packageId, patch: true });
    expect(proxy.partRequests).toBe(Number(run.json().totalParts) - state.upload!.parts.length);
  }, 60_000);
});
