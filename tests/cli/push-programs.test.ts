import { afterAll, beforeAll, expect, test } from 'bun:test';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectProgram, PROGRAM_SNIFF_BYTES } from '../../src/shared/packages/program-detect.ts';
import type { TestUser } from '../support/accounts.ts';
import type { TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { cliEnv, pushTarget, removeDir, runCli, temporaryDir } from './support.ts';

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
  let apiToken: string;
  ({ owner, project, apiToken } = await pushTarget(server));
  home = temporaryDir('home');
  buildDir = temporaryDir('build');
  env = cliEnv(home);
  const login = await runCli(['login', '--server', String(server.url), '--token', apiToken], env);
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
  expect(run.stderr).toContain("warning: No start file is set: players will not know which file starts the game. (fix: set the start file (e.g. 'hopper'))");
  const withStart = await runCli(['push', buildDir, `${project.id}/main`, '--tags', 'os:linux', '--entrypoint', 'hopper', '--json'], env);
  expect(withStart.code).toBe(0);
  expect(withStart.stderr).toContain("warning: The header of the start file 'hopper' (ELF) suggests the tags arch:x86, bits:64. (fix: add tags arch:x86, bits:64)");
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

test('without --tags, the refusal suggests the tags the start file\'s header names (given or the one offered), not a fixed example', async () => {
  const elf = temporaryDir('elf');
  const script = temporaryDir('script');
  try {
    copyFileSync('/bin/true', join(elf, 'hopper'));
    writeFileSync(join(elf, 'notes.txt'), 'notes');
    // What this machine's /bin/true says it runs on (x86-64 here: os:linux,arch:x86,bits:64).
    const expected = detectProgram(readFileSync('/bin/true').subarray(0, PROGRAM_SNIFF_BYTES))!.tags;
    expect(expected).toContain('os:linux');
    const list = expected.join(',');

    const offered = await runCli(['push', elf, `${project.id}/main`], env);
    expect(offered.code).toBe(4);
    expect(offered.stderr).toContain(`no --tags given: the header of the start file 'hopper' (ELF) names ${expected.join(', ')}: tag the package (--tags ${list}) or pass --allow-untagged`);
    expect(offered.stderr).not.toContain('e.g. --tags');

    const given = await runCli(['push', elf, `${project.id}/main`, '--start-file', 'hopper', '--json'], env);
    expect(given.code).toBe(4);
    expect(JSON.parse(given.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'checks_failed', details: { suggestedTags: expected }, exitCode: 4 });

    // A start file whose header names nothing (a text file): the fixed example stays.
    const text = await runCli(['push', elf, `${project.id}/main`, '--start-file', 'notes.txt'], env);
    expect(text.code).toBe(4);
    expect(text.stderr).toContain('no --tags given: tag the package (e.g. --tags os:linux,arch:x86,bits:64) or pass --allow-untagged');

    // A #! script names only its system.
    writeFileSync(join(script, 'run.sh'), '#!/bin/sh\necho hi\n');
    const shell = await runCli(['push', script, `${project.id}/main`], env);
    expect(shell.code).toBe(4);
    expect(shell.stderr).toContain("the header of the start file 'run.sh' (#!) names os:linux: tag the package (--tags os:linux)");
  } finally {
    removeDir(elf);
    removeDir(script);
  }
}, 60_000);

test('human output: "packed 1 file" (one), "packed 2 files"; "start file" in the help and the warnings', async () => {
  const one = temporaryDir('one');
  try {
    writeFileSync(join(one, 'index.html'), '<!doctype html><title>game</title>');
    const single = await runCli(['push', one, `${project.id}/main`, '--tags', 'os:web', '--start-file', 'index.html', '--version', 'one-file'], env);
    expect(single.code).toBe(0);
    expect(single.stderr).toMatch(/^packed 1 file \(/m);
    writeFileSync(join(one, 'game.js'), 'console.log(1)');
    const two = await runCli(['push', one, `${project.id}/main`, '--tags', 'os:web', '--entrypoint', 'index.html', '--version', 'two-files'], env);
    expect(two.code).toBe(0);
    expect(two.stderr).toMatch(/^packed 2 files \(/m);
    // The start file is stored as given by either name.
    const rows = (await (await server.fetch(`/api/projects/${project.id}/packages`, { token: owner.token })).json()) as { entrypoint: string[] | null }[];
    expect(rows.filter((row) => row.entrypoint?.join('/') === 'index.html').length).toBeGreaterThanOrEqual(2);

    // A folder without the start file of the package it updates: none is set, which --strict refuses.
    rmSync(join(one, 'index.html'));
    const strict = await runCli(['push', one, `${project.id}/main`, '--tags', 'os:web', '--strict'], env);
    expect(strict.code).toBe(4);
    expect(strict.stderr).toContain('warning: No start file is set');
    expect(strict.stderr).toContain('1 package check failed (--strict)');
    expect(strict.stderr).not.toMatch(/entrypoint/i);

    const both = await runCli(['push', one, `${project.id}/main`, '--tags', 'os:web', '--start-file', 'game.js', '--entrypoint', 'index.html'], env);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('--start-file and --entrypoint name the same thing');

    const help = await runCli(['push', '--help'], env);
    expect(help.stdout).toContain('--start-file PATH');
    expect(help.stdout).toContain('the file that starts the game');
  } finally {
    removeDir(one);
  }
}, 60_000);

test('an update keeps the start file of the package it replaces when none is given; one given wins; a start file gone is not kept', async () => {
  const build = temporaryDir('keep');
  try {
    writeFileSync(join(build, 'index.html'), '<!doctype html><title>keep</title>');
    writeFileSync(join(build, 'menu.html'), '<!doctype html><title>menu</title>');
    const tags = 'os:web,component:client';
    const first = await runCli(['push', build, `${project.id}/main`, '--tags', tags, '--start-file', 'index.html', '--version', 'keep-1', '--json'], env);
    expect(first.code).toBe(0);
    const entrypointOf = async (id: string) =>
      ((await (await server.fetch(`/api/projects/${project.id}/packages/${id}`, { token: owner.token })).json()) as { entrypoint: string[] | null }).entrypoint;

    writeFileSync(join(build, 'level.js'), 'console.log(2)');
    const update = await runCli(['push', build, `${project.id}/main`, '--tags', tags, '--version', 'keep-2', '--json'], env);
    expect(update.code).toBe(0);
    expect(update.stderr).toContain("start file 'index.html' kept from the package this one updates\n");
    const updated = update.json() as { package: string; warnings: string[]; patch: boolean };
    expect(updated.patch).toBe(true);
    expect(updated.warnings).not.toContain('entrypoint_not_set');
    expect(await entrypointOf(updated.package)).toEqual(['index.html']);

    const chosen = await runCli(['push', build, `${project.id}/main`, '--tags', tags, '--start-file', 'menu.html', '--version', 'keep-3', '--json'], env);
    expect(chosen.code).toBe(0);
    expect(chosen.stderr).not.toContain('kept from the package');
    expect(await entrypointOf((chosen.json() as { package: string }).package)).toEqual(['menu.html']);

    rmSync(join(build, 'menu.html'));
    const gone = await runCli(['push', build, `${project.id}/main`, '--tags', tags, '--version', 'keep-4', '--json'], env);
    expect(gone.code).toBe(0);
    expect(gone.stderr).not.toContain('kept from the package');
    expect(await entrypointOf((gone.json() as { package: string }).package)).toBeNull();
  } finally {
    removeDir(build);
  }
}, 60_000);
