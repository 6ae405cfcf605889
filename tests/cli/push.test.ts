import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readAllFiles, readArchive } from '../../src/shared/archive/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createApiToken, createProject, type TestProject } from '../support/projects.ts';
import { startTestProxy, type TestProxy } from '../support/http-proxy.ts';
import { noise } from '../support/noise.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { cliEnv, createBranch, generatedBuild, removeDir, runCli, temporaryDir, writeBuild, type BuildFiles } from './support.ts';

let server: TestServer;
let proxy: TestProxy;
let owner: TestUser;
let project: TestProject;
let home: string;
let buildDir: string;
let env: Record<string, string>;
const files: BuildFiles = generatedBuild();

beforeAll(async () => {
  server = await startTestServer({ UPLOAD_PART_SIZE: String(512 * 1024) });
  proxy = startTestProxy(String(server.url).replace(/\/+$/, ''));
  owner = await registerUser(server);
  project = await createProject(server, owner);
  await createBranch(server, owner.token, project.id, 'beta');
  home = temporaryDir('home');
  buildDir = temporaryDir('build');
  writeBuild(buildDir, files);
  env = cliEnv(home);
  const login = await runCli(['login', '--server', proxy.url, '--token', await createApiToken(server, owner)], env);
  expect(login.code).toBe(0);
});
afterAll(async () => {
  proxy.stop();
  await server.stop();
  removeDir(home);
  removeDir(buildDir);
});

async function downloadedFiles(format: 'archive' | 'zip'): Promise<{ path: string; size: number }> {
  const output = join(home, `download.${format === 'zip' ? 'zip' : 'crt'}`);
  const run = await runCli(['download', `${project.id}/beta`, '--format', format, '-o', output, '--json'], env);
  expect(run.stderr).not.toContain('cartridge:');
  expect(run.code).toBe(0);
  return { path: output, size: Number(run.json().size) };
}

async function expectArchiveHolds(expected: BuildFiles): Promise<void> {
  const { path } = await downloadedFiles('archive');
  const read = await readArchive(Bun.file(path).stream());
  const contents = await readAllFiles(read);
  expect([...contents.keys()].sort()).toEqual(Object.keys(expected).sort());
  for (const [name, file] of Object.entries(expected)) expect(Bun.hash(contents.get(name)!)).toBe(Bun.hash(file.bytes));
  const executable = [...(function* walk(dir, prefix: string[]): Generator<string> {
    for (const entry of dir.entries.values()) {
      if (entry.kind === 'directory') yield* walk(entry, [...prefix, entry.name]);
      else if (entry.kind === 'file' && (entry.mode & 1) !== 0) yield [...prefix, entry.name].join('/');
    }
  })(read.index.root, [])];
  expect(executable).toEqual(['game.x86_64']);
}

describe('cartridge push and download', () => {
  let firstArchiveSize = 0;

  test('a first push uploads the whole archive, creates version 1.0.0 and publishes it', async () => {
    proxy.reset();
    const run = await runCli(['push', buildDir, `${project.title}/beta`, '--tags', 'os:linux,arch:x86', '--entrypoint', 'game.x86_64', '--json'], env);
    expect(run.stderr).not.toContain('cartridge:');
    expect(run.code).toBe(0);
    const result = run.json();
    expect(result).toMatchObject({ patch: false, basePackage: null, versionTitle: '1.0.0', resumed: false, warnings: [] });
    firstArchiveSize = Number(result.archiveSize);
    expect(firstArchiveSize).toBeGreaterThan(3_000_000);
    expect(result.sentBytes).toBe(firstArchiveSize);
    expect(proxy.partBytes).toBe(firstArchiveSize);
    expect(proxy.partRequests).toBe(Math.ceil(firstArchiveSize / (512 * 1024)));

    const branches = (await (await server.fetch(`/api/projects/${project.id}/branches`, { token: owner.token })).json()) as { title: string; currentVersion: { version: string; title: string } | null }[];
    const beta = branches.find((branch) => branch.title === 'beta')!;
    expect(beta.currentVersion).toMatchObject({ version: result.version as string, title: '1.0.0' });
    const packages = (await (await server.fetch(`/api/projects/${project.id}/versions/${result.version}/packages`, { token: owner.token })).json()) as { id: string; tags: string[]; entrypoint: string[]; status: string }[];
    expect(packages).toHaveLength(1);
    expect(packages[0]).toMatchObject({ id: result.package as string, tags: ['os:linux', 'arch:x86'], entrypoint: ['game.x86_64'], status: 'ready' });
  });

  test('the published package downloads as the same files (archive and ZIP)', async () => {
    await expectArchiveHolds(files);
    const zip = await downloadedFiles('zip');
    const listing = Bun.spawnSync(['unzip', '-Z1', zip.path]).stdout.toString().trim().split('\n').filter((line) => !line.endsWith('/'));
    expect(listing.sort()).toEqual(Object.keys(files).sort());
    const level = Bun.spawnSync(['unzip', '-p', zip.path, 'data/level1.pak']).stdout;
    expect(Bun.hash(level)).toBe(Bun.hash(files['data/level1.pak']!.bytes));
  });

  test('an update where one file changed sends a patch much smaller than the build', async () => {
    const changed = noise(150_000, 99);
    writeFileSync(join(buildDir, 'data/music/theme.ogg'), changed);
    proxy.reset();
    const run = await runCli(['push', buildDir, `${project.id}/beta`, '--tags', 'arch:x86,os:linux', '--entrypoint', 'game.x86_64', '--description', 'New music', '--json'], env);
    expect(run.stderr).not.toContain('cartridge:');
    expect(run.code).toBe(0);
    const result = run.json();
    expect(result).toMatchObject({ patch: true, versionTitle: '1.0.1' });
    expect(result.basePackage).toBeString();
    // The changed file is 150 kB; the build over 3 MB: what travels is that file plus the index.
    expect(proxy.partBytes).toBe(Number(result.sentBytes));
    expect(proxy.partBytes).toBeLessThan(firstArchiveSize / 10);
    expect(proxy.partBytes).toBeGreaterThan(150_000);
    await expectArchiveHolds({ ...files, 'data/music/theme.ogg': { bytes: changed } });
    const version = (await (await server.fetch(`/api/projects/${project.id}/versions/${result.version}`, { token: owner.token })).json()) as { description: string };
    expect(version.description).toBe('New music');
  });

  test('status lists the branch, its current version and package sizes', async () => {
    const run = await runCli(['status', `${project.id}/beta`, '--json'], env);
    expect(run.code).toBe(0);
    const status = run.json() as { branches: { title: string; currentVersion: { title: string }; packages: { size: number; tags: string[] }[] }[] };
    expect(status.branches).toHaveLength(1);
    expect(status.branches[0]!.currentVersion.title).toBe('1.0.1');
    const total = Object.values(files).reduce((sum, file) => sum + file.bytes.length, 0) - 400_000 + 150_000;
    expect(status.branches[0]!.packages.map((item) => item.size)).toEqual([total]);
    const text = await runCli(['status', project.title], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('beta');
    expect(text.stdout).toContain('version 1.0.1');
  });

  test('a push of other tags keeps the existing package in the new version', async () => {
    const run = await runCli(['push', buildDir, `${project.id}/beta`, '--tags', 'os:windows', '--entrypoint', 'game.x86_64', '--version', 'win-1', '--json'], env);
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ patch: false, versionTitle: 'win-1' });
    const packages = (await (await server.fetch(`/api/projects/${project.id}/versions/${run.json().version}/packages`, { token: owner.token })).json()) as { tags: string[] }[];
    expect(packages.map((item) => item.tags)).toEqual([['os:linux', 'arch:x86'], ['os:windows']]);
    const ambiguous = await runCli(['download', `${project.id}/beta`, '-o', join(home, 'x.zip')], env);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain('--tags os:windows');
  });

  test('without --tags a push is refused with exit 4 before anything is sent, unless --allow-untagged', async () => {
    const branchOf = async () =>
      ((await (await server.fetch(`/api/projects/${project.id}/branches`, { token: owner.token })).json()) as { title: string; currentVersion: { version: string } | null }[]).find((branch) => branch.title === 'beta')!;
    const before = (await branchOf()).currentVersion!.version;
    proxy.reset();
    // A real process: the exit status is what CI sees.
    const child = Bun.spawn([process.execPath, 'src/cli/main.ts', 'push', buildDir, `${project.id}/beta`, '--entrypoint', 'game.x86_64'], {
      cwd: join(import.meta.dir, '../..'),
      env,
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    clearTimeout(timer);
    expect(code).toBe(4);
    expect(stderr).toContain('cartridge: no --tags given');
    expect(stderr).toContain('--allow-untagged');
    expect(proxy.partRequests).toBe(0);
    expect((await branchOf()).currentVersion!.version).toBe(before);
    // An empty list is no tags either.
    expect((await runCli(['push', buildDir, `${project.id}/beta`, '--tags', '', '--entrypoint', 'game.x86_64'], env)).code).toBe(4);

    const allowed = await runCli(['push', buildDir, `${project.id}/beta`, '--allow-untagged', '--entrypoint', 'game.x86_64', '--version', 'untagged-1', '--json'], env);
    expect(allowed.stderr).not.toContain('cartridge:');
    expect(allowed.code).toBe(0);
    // The output names the package as every page does (src/shared/packages/package-name.ts).
    expect(allowed.json()).toMatchObject({ versionTitle: 'untagged-1', packageTitle: 'Package' });
    const packages = (await (await server.fetch(`/api/projects/${project.id}/versions/${allowed.json().version}/packages`, { token: owner.token })).json()) as { tags: string[]; title: string }[];
    expect(packages.map((item) => item.tags)).toContainEqual([]);
    expect(packages.find((item) => item.tags.length === 0)?.title).toBe('Package');
  }, 60_000);

  test("download's default file names are the server's (one naming rule, no version in it)", async () => {
    const zip = await runCli(['download', `${project.id}/beta`, '--tags', 'os:linux,arch:x86', '--json'], { ...env, PWD: home });
    expect(zip.code).toBe(0);
    expect(zip.json().path).toBe(join(home, `${project.title} Linux x86.zip`));
    const { url } = (await (await server.fetch(`/api/projects/${project.id}/packages/${zip.json().package}/download?filter=zip`, { token: owner.token })).json()) as { url: string };
    const disposition = (await fetch(url, { method: 'HEAD' })).headers.get('content-disposition') ?? '';
    expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent(`${project.title} Linux x86.zip`)}`);
    const archive = await runCli(['download', `${project.id}/beta`, '--tags', 'os:linux,arch:x86', '--format', 'archive', '--json'], { ...env, PWD: home });
    expect(archive.json().path).toBe(join(home, `${project.title} Linux x86.crt`));
  });

  test('--help lists --allow-untagged and the exit code it gives', async () => {
    const help = await runCli(['push', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--allow-untagged');
    const all = await runCli(['--help'], env);
    expect(all.stdout).toMatch(/ 4 {2}package refused before upload: no --tags \(without --allow-untagged\)/);
  });
});
