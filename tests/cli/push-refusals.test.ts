/**
 * `cartridge push` refuses a folder the server would refuse at finalize (issue 13, items 5 and 8):
 * a symlink leading outside the folder, or names and paths above the archive limits. Exit 1 (invalid
 * input, see --help), the entry named, nothing uploaded.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { bytesSource, createTree, decodeIndex } from '../../src/shared/archive/index.ts';
import { CliError } from '../../src/cli/errors.ts';
import { completeIo } from '../../src/cli/io.ts';
import { packToFile } from '../../src/cli/push-pack.ts';
import type { TestUser } from '../support/accounts.ts';
import type { TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { cliEnv, pushTarget, removeDir, runCli, temporaryDir, writeBuild } from './support.ts';

let server: TestServer;
let owner: TestUser;
let project: TestProject;
let home: string;
let env: Record<string, string>;
const dirs: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  let apiToken: string;
  ({ owner, project, apiToken } = await pushTarget(server));
  home = temporaryDir('refusals-home');
  env = cliEnv(home, { CARTRIDGE_SERVER: server.url, CARTRIDGE_TOKEN: apiToken });
});
afterAll(async () => {
  await server.stop();
  removeDir(home);
  for (const dir of dirs) removeDir(dir);
});

/** A small build in a folder of its own, with the given symlinks (path → target). */
function buildWithLinks(links: Record<string, string>): string {
  const dir = temporaryDir('links');
  dirs.push(dir);
  writeBuild(dir, { 'game.x86_64': { bytes: new TextEncoder().encode('#!/bin/sh\necho game\n'), executable: true }, 'data/level.txt': { bytes: new TextEncoder().encode('level') } });
  for (const [path, target] of Object.entries(links)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    symlinkSync(target, join(dir, path));
  }
  return dir;
}

async function packageCount(): Promise<number> {
  const response = await server.fetch(`/api/projects/${project.id}/packages`, { token: owner.token });
  expect(response.status).toBe(200);
  return ((await response.json()) as unknown[]).length;
}

const pushArgs = (dir: string) => ['push', dir, `${project.id}/main`, '--tags', 'os:linux', '--entrypoint', 'game.x86_64'];

describe('cartridge push and symlinks (item 5)', () => {
  test('the real executable refuses saves → ../../escaped with exit 1, naming the link, uploading nothing', async () => {
    const dir = buildWithLinks({ saves: '../../escaped' });
    const child = Bun.spawn([process.execPath, 'src/cli/main.ts', ...pushArgs(dir)], { cwd: join(import.meta.dir, '../..'), env, stdout: 'pipe', stderr: 'pipe' });
    const timer = setTimeout(() => child.kill(), 30_000);
    const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    clearTimeout(timer);
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot pack '${dir}': symlink 'saves' → '../../escaped' leads above the archive root`);
    expect(stderr).toContain('links must stay inside the folder');
    expect(await packageCount()).toBe(0);
  }, 40_000);

  test.each([
    ['an absolute target', { passwd: '/etc/passwd' }, 'passwd'],
    ['one level above a subfolder', { 'd/up': '../..' }, 'd/up'],
    ['a chain through another link', { 'sub/up': '..', escape: 'sub/up/..' }, 'escape'],
    ['a loop', { a: 'b/x', b: 'a/y' }, 'a'],
  ])('%s is refused with exit 1 naming the link', async (_, links, path) => {
    const run = await runCli(pushArgs(buildWithLinks(links)), env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`symlink '${path}'`);
    expect(run.stderr).toContain('links must stay inside the folder');
    expect(await packageCount()).toBe(0);
  });

  test('links that stay inside are pushed as links', async () => {
    const dir = buildWithLinks({ 'lib/libfoo.so': 'libfoo.so.1', 'data/current': '../data/level.txt' });
    await Bun.write(join(dir, 'lib/libfoo.so.1'), 'lib');
    const run = await runCli([...pushArgs(dir), '--json'], env);
    expect(run.stderr).not.toContain('cartridge:');
    expect(run.code).toBe(0);
    const link = await server.fetch(`/api/projects/${project.id}/packages/${run.json().package}/download?filter=index`, { token: owner.token });
    const index = await fetch(new URL(((await link.json()) as { url: string }).url, server.url));
    const root = decodeIndex(new Uint8Array(await index.arrayBuffer())).root;
    const lib = root.entries.get('lib');
    expect(lib?.kind === 'directory' && lib.entries.get('libfoo.so')).toMatchObject({ kind: 'symlink', target: 'libfoo.so.1' });
  }, 30_000);
});

describe('the CLI packer and name limits (item 8)', () => {
  test('a tree with a 256-byte name is refused with exit 1 naming it, before an archive is written', async () => {
    // No Linux file system holds a name above 255 bytes (NTFS does: 255 UTF-16 units), so the tree is built by hand.
    const tree = createTree();
    const name = 'n'.repeat(256);
    tree.root.entries.set(name, { kind: 'file', name, size: 1, mode: 0, source: bytesSource(new Uint8Array(1)) });
    tree.root.size = 1;
    const out = join(home, 'refused.crt');
    let error: unknown;
    try {
      await packToFile(tree, out, { compression: 0, quiet: true, io: completeIo({ env: {}, stderr: () => {} }) });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(1);
    expect((error as CliError).message).toContain('name is 256 bytes long, above the limit of 255');
    expect((error as CliError).message).toContain(`'${'n'.repeat(200)}…'`);
  });
});

describe('cartridge push and bidirectional controls in names (issue 28)', () => {
  test("the real executable refuses a file 'photo\\u202Egnp.exe' (shown as photoexe.png) with exit 1, naming it escaped, uploading nothing", async () => {
    const dir = buildWithLinks({});
    writeBuild(dir, { 'shots/photo\u202Egnp.exe': { bytes: new TextEncoder().encode('MZ'), executable: true } });
    const before = await packageCount();
    const child = Bun.spawn([process.execPath, 'src/cli/main.ts', ...pushArgs(dir)], { cwd: join(import.meta.dir, '../..'), env, stdout: 'pipe', stderr: 'pipe' });
    const timer = setTimeout(() => child.kill(), 30_000);
    const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    clearTimeout(timer);
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot pack '${dir}': 'shots/photo\\u202Egnp.exe': name 'photo\\u202Egnp.exe' holds the bidirectional control U+202E`);
    expect(stderr).not.toContain('\u202e');
    expect(await packageCount()).toBe(before);
  }, 40_000);
});
