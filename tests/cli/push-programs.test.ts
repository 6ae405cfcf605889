import { afterAll, beforeAll, expect, test } from 'bun:test';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createApiToken, createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { cliEnv, createBranch, removeDir, runCli, temporaryDir } from './support.ts';

/**
 * Issue 29: a Linux build unpacked from a ZIP (or copied from a Windows share) has no executable bits
 * on disk. The CLI knows its programs by their first bytes and packs them executable.
 */
let server: TestServer;
let owner: TestUser;
let project: TestProject;
let home: string;
let buildDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server);
  project = await createProject(server, owner);
  await createBranch(server, owner.token, project.id, 'main');
  home = temporaryDir('home');
  buildDir = temporaryDir('build');
  env = cliEnv(home);
  const login = await runCli(['login', '--server', String(server.url), '--token', await createApiToken(server, owner)], env);
  expect(login.code).toBe(0);
});
afterAll(async () => {
  await server.stop();
  removeDir(home);
  removeDir(buildDir);
});

/** Each file's mode as the ZIP download's external attributes give it (`unzip -Z`: '-rwxr-xr-x ... name'). */
function zipModes(path: string): Record<string, string> {
  const listing = Bun.spawnSync(['unzip', '-Z', path]).stdout.toString().split('\n');
  const modes: Record<string, string> = {};
  for (const line of listing) {
    const match = /^([-dl][rwx-]{9})\s.*\s(\S+)$/.exec(line);
    if (match && match[1]!.startsWith('-')) modes[match[2]!] = match[1]!;
  }
  return modes;
}

test('programs whose files lack the bit on disk are packed executable, with a line saying so; data stays as it is', async () => {
  copyFileSync('/bin/true', join(buildDir, 'hopper'));
  writeFileSync(join(buildDir, 'start'), '#!/bin/sh\nexec "$(dirname "$0")/hopper"\n');
  mkdirSync(join(buildDir, 'data'));
  writeFileSync(join(buildDir, 'data/level.pck'), 'GDPC level data');
  for (const name of ['hopper', 'start', 'data/level.pck']) chmodSync(join(buildDir, name), 0o644);

  const run = await runCli(['push', buildDir, `${project.id}/main`, '--tags', 'os:linux,arch:x86,bits:64', '--entrypoint', 'hopper', '--json'], env);
  expect(run.stderr).not.toContain('cartridge:');
  expect(run.code).toBe(0);
  expect(run.stderr).toContain("marked executable by their content: 'hopper' (ELF), 'start' (#!)\n");
  // Marked before the checks: no not_executable warning for the start file.
  expect(run.json()).toMatchObject({ warnings: [], markedExecutable: ['hopper', 'start'] });

  const zip = join(home, 'download.zip');
  const download = await runCli(['download', `${project.id}/main`, '--format', 'zip', '-o', zip, '--json'], env);
  expect(download.code).toBe(0);
  expect(zipModes(zip)).toEqual({ hopper: '-rwxr-xr-x', start: '-rwxr-xr-x', 'data/level.pck': '-rw-r--r--' });
}, 60_000);

test('without a start file given, the checks offer the extensionless ELF; and its header suggests the tags left out', async () => {
  const run = await runCli(['push', buildDir, `${project.id}/main`, '--tags', 'os:linux', '--json'], env);
  expect(run.code).toBe(0);
  expect(run.stderr).toContain("warning: No entrypoint is set: players will not know which file starts the game. (fix: set the entrypoint (e.g. 'hopper'))");
  const withStart = await runCli(['push', buildDir, `${project.id}/main`, '--tags', 'os:linux', '--entrypoint', 'hopper', '--json'], env);
  expect(withStart.code).toBe(0);
  expect(withStart.stderr).toContain("warning: The header of the entrypoint 'hopper' (ELF) suggests the tags arch:x86, bits:64. (fix: add tags arch:x86, bits:64)");
  expect(withStart.json()).toMatchObject({ warnings: ['header_suggests_tag'] });
}, 60_000);

test('a many-program folder names the first five and counts the rest', async () => {
  const many = temporaryDir('many');
  try {
    for (let i = 0; i < 8; i++) writeFileSync(join(many, `tool${i}`), '#!/bin/sh\n');
    const run = await runCli(['push', many, `${project.id}/main`, '--tags', 'os:linux', '--entrypoint', 'tool0', '--json'], env);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("marked executable by their content: 'tool0' (#!), 'tool1' (#!), 'tool2' (#!), 'tool3' (#!), 'tool4' (#!) and 3 more\n");
  } finally {
    removeDir(many);
  }
}, 60_000);
