import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { main } from '../../src/cli/main.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { noise } from '../support/noise.ts';
import { createApiToken, createProject, type TestProject } from '../support/projects.ts';
import type { TestServer } from '../support/server.ts';

export type BuildFiles = Record<string, { bytes: Uint8Array<ArrayBuffer>; executable?: boolean }>;

/** A game build of about 3 MiB: an executable, data files, a small text file. */
export function generatedBuild(): BuildFiles {
  return {
    'game.x86_64': { bytes: noise(1_200_000, 1), executable: true },
    'data/level1.pak': { bytes: noise(900_000, 2) },
    'data/level2.pak': { bytes: noise(700_000, 3) },
    'data/music/theme.ogg': { bytes: noise(400_000, 4) },
    'README.txt': { bytes: new TextEncoder().encode('A generated game build for the CLI tests.\n') },
  };
}

export function writeBuild(dir: string, files: BuildFiles): void {
  for (const [path, file] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, file.bytes);
    chmodSync(full, file.executable ? 0o755 : 0o644);
  }
}

export function temporaryDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `cartridge-cli-${prefix}-`));
}

/** A home of its own per test user: credentials and cache land there, never in the real ~/. */
export function cliEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_CACHE_HOME: join(home, 'cache'),
    CARTRIDGE_RETRY_DELAY_MS: '20',
    PATH: process.env.PATH ?? '',
    ...extra,
  };
}

export type CliRun = { code: number; stdout: string; stderr: string; json: () => Record<string, unknown> };

/** Runs the CLI in this process with its own env and captured output. */
export async function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { env, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), isTTY: false });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) as Record<string, unknown> };
}

export async function createBranch(server: TestServer, token: string, projectId: string, title: string): Promise<{ id: string }> {
  const response = await server.fetch(`/api/projects/${projectId}/branches`, { method: 'POST', token, json: { title } });
  if (response.status !== 200) throw new Error(`create branch: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string };
}

/** What a push needs on the server: an owner with an API token, a project with a branch 'main'. */
export async function pushTarget(server: TestServer): Promise<{ owner: TestUser; project: TestProject; apiToken: string }> {
  const owner = await registerUser(server);
  const project = await createProject(server, owner);
  await createBranch(server, owner.token, project.id, 'main');
  return { owner, project, apiToken: await createApiToken(server, owner) };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
