import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { startChildServer, type ChildServer } from '../../support/child-server.ts';

export type BenchServer = ChildServer & { pid: number; database: 'pglite' | 'postgres' };
export type BenchAccount = {
  token: string;
  projectId: string;
  branch: string;
  branchId: string;
  /** The registration's session cookie (name=value), for a browser signed in as the same user. */
  cookie: string;
};

/** Pids of this process's children (every thread's list). */
function childPids(): number[] {
  const pids = new Set<number>();
  for (const task of readdirSync('/proc/self/task')) {
    const text = readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim();
    for (const pid of text.split(/\s+/).filter(Boolean)) pids.add(Number(pid));
  }
  return [...pids];
}

/**
 * The real server as its own process (`bun src/server/main.ts`, production mode, tests/support
 * startChildServer): PGlite on disk in its DATA_DIR, or a fresh database on BENCH_DATABASE_URL; file
 * blobs in DATA_DIR/blobs unless `env` names another STORAGE_URL. LOG_LEVEL=info: its request log times
 * the finalize call (finalize.ts). Its pid is found among our children by its working folder (its
 * DATA_DIR), so its memory can be sampled.
 */
export async function startBenchServer(databaseUrl: string | undefined, env: Record<string, string> = {}): Promise<BenchServer> {
  const saved = process.env.DATABASE_URL;
  if (databaseUrl) process.env.DATABASE_URL = databaseUrl;
  else delete process.env.DATABASE_URL;
  let server: ChildServer;
  try {
    server = await startChildServer({ env: { QUOTA_PACKAGE_SIZE: '0', LOG_LEVEL: 'info', ...env }, startTimeoutMs: 60_000 });
  } finally {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
  const pid = childPids().find((candidate) => {
    try {
      return readlinkSync(`/proc/${candidate}/cwd`) === server.dataDir;
    } catch {
      return false;
    }
  });
  if (!pid) {
    await server.stop();
    throw new Error('could not find the server process among our children');
  }
  return Object.assign(server, { pid, database: databaseUrl ? ('postgres' as const) : ('pglite' as const) });
}

export async function api<T>(server: ChildServer, method: string, path: string, token?: string, json?: unknown): Promise<T> {
  const response = await server.fetch(`/api${path}`, { method, token, json });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** A user (through the public API, with its session cookie), an API token for the CLI, a project and a branch to push to. */
export async function createAccount(server: ChildServer): Promise<BenchAccount> {
  const name = `bench${Math.random().toString(36).slice(2, 10)}`;
  const registered = await server.fetch('/api/auth/password', { method: 'POST', json: { name, password: `pw-${name}-secret`, intent: 'register' } });
  if (registered.status !== 200) throw new Error(`POST /auth/password: ${registered.status} ${(await registered.text()).slice(0, 300)}`);
  const session = (await registered.json()) as { authToken: string };
  const cookie = (registered.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { token } = await api<{ token: string }>(server, 'POST', '/users/me/sessions', session.authToken, {});
  const project = await api<{ id: string }>(server, 'POST', '/projects', token, { title: 'Package Bench' });
  const branch = await api<{ id: string }>(server, 'POST', `/projects/${project.id}/branches`, token, { title: 'main' });
  return { token, projectId: project.id, branch: 'main', branchId: branch.id, cookie };
}

/** The package the branch's current version holds (what the last push published). */
export async function currentPackage(server: ChildServer, account: BenchAccount): Promise<{ id: string; size: number; storedSize: number }> {
  const branches = await api<{ title: string; currentVersion?: { version: string } | null }[]>(server, 'GET', `/projects/${account.projectId}/branches`, account.token);
  const version = branches.find((branch) => branch.title === account.branch)?.currentVersion?.version;
  if (!version) throw new Error('the branch has no current version after the push');
  const packages = await api<{ id: string; size: number; storedSize: number }[]>(server, 'GET', `/projects/${account.projectId}/versions/${version}/packages`, account.token);
  if (packages.length !== 1) throw new Error(`expected one package in the pushed version, got ${packages.length}`);
  return packages[0]!;
}
