import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Subprocess } from 'bun';
import postgres from 'postgres';
import { openDatabase, pgliteDirOf } from '../../src/server/db/client.ts';
import { createTestDatabase, pgliteTemplate, type TestDatabase } from './database.ts';
import { findFreePort } from './free-port.ts';

const mainScript = resolve(import.meta.dir, '../../src/server/main.ts');

/**
 * A whole instance for the backup tests: the real server as a child process (`bun src/server/main.ts`)
 * on its own DATA_DIR and database (PGlite there, or with DATABASE_URL a fresh PostgreSQL database of
 * its own), stopped the way an operator stops it (SIGTERM: PGlite closes and removes its postmaster.pid),
 * and `cartridge admin ...` run with the same environment. Unlike child-server.ts (crash tests: kill -9),
 * an instance can be wiped (database dropped and created again empty, DATA_DIR emptied) and started
 * again on what a restore wrote.
 */
export type Instance = {
  url: string;
  dataDir: string;
  /** The server's environment (the admin command gets it too). */
  env: Record<string, string>;
  /** PostgreSQL only: the instance's database. */
  databaseUrl: string | undefined;
  readonly running: boolean;
  start(): Promise<void>;
  /** SIGTERM and wait for the exit (a clean stop). */
  stop(): Promise<void>;
  fetch(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  /** `cartridge admin ...args` with the instance's environment plus `env`, to its end. */
  admin(args: string[], env?: Record<string, string>): Promise<CommandResult>;
  /** The same, started and left running: the caller awaits `done`. */
  spawnAdmin(args: string[], env?: Record<string, string>): { pid: number; done: Promise<CommandResult> };
  /** Stops the server, drops and re-creates the database empty, removes everything in DATA_DIR. */
  wipe(): Promise<void>;
  readLog(): string;
  destroy(): Promise<void>;
};

export type CommandResult = { code: number; stdout: string; stderr: string };

export type InstanceOptions = {
  env?: Record<string, string>;
  /** true: no database seeded (an empty target for a restore); PGlite is then created by the restore. */
  empty?: boolean;
};

export async function createInstance(options: InstanceOptions = {}): Promise<Instance> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cartridge-backup-instance-'));
  const logPath = join(dataDir, '..', `${dataDir.split('/').pop()}.log`);
  let database: TestDatabase;
  try {
    database = await createTestDatabase();
    if (!database.url && !options.empty) {
      const handle = await openDatabase({ pgliteDir: pgliteDirOf(dataDir), pgliteTemplate: await pgliteTemplate() });
      await handle.close();
    }
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const inherited = Object.fromEntries(
    ['PATH', 'HOME', 'TMPDIR', 'LANG'].flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]!]])),
  );
  const env: Record<string, string> = {
    ...inherited,
    NODE_ENV: 'production',
    DATA_DIR: dataDir,
    PORT: String(port),
    PLAY_PORT: '0',
    HOST: '127.0.0.1',
    STORAGE_URL: 'file:',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...options.env,
  };

  let child: Subprocess | undefined;
  let exited = true;

  function readLog(): string {
    try {
      return readFileSync(logPath, 'utf8');
    } catch {
      return '';
    }
  }

  async function start(): Promise<void> {
    if (!exited) return;
    const logFd = openSync(logPath, 'a');
    const proc = Bun.spawn([process.execPath, mainScript], { cwd: dataDir, env, stdin: 'ignore', stdout: logFd, stderr: logFd });
    closeSync(logFd);
    child = proc;
    exited = false;
    void proc.exited.then(() => {
      if (child === proc) exited = true;
    });
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (exited) throw new Error(`the server exited with ${proc.exitCode} while starting:\n${readLog()}`);
      try {
        const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
        if (response.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`the server did not answer /health in time:\n${readLog()}`);
      }
      await Bun.sleep(50);
    }
  }

  async function stop(): Promise<void> {
    if (!child || exited) return;
    const proc = child;
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    await proc.exited;
    clearTimeout(timer);
    exited = true;
    if (proc.signalCode === 'SIGKILL') throw new Error(`the server did not stop on SIGTERM:\n${readLog()}`);
  }

  function spawnAdmin(args: string[], extra: Record<string, string> = {}) {
    const proc = Bun.spawn([process.execPath, mainScript, 'admin', ...args], { cwd: dataDir, env: { ...env, ...extra }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
    const done = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]).then(([stdout, stderr, code]) => ({ code, stdout, stderr }));
    return { pid: proc.pid, done };
  }

  async function wipe(): Promise<void> {
    await stop();
    if (database.url) {
      const name = new URL(database.url).pathname.slice(1);
      const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
        await admin.unsafe(`create database "${name}"`);
      } finally {
        await admin.end();
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
  }

  return {
    url,
    dataDir,
    env,
    databaseUrl: database.url,
    get running() {
      return !exited;
    },
    start,
    stop,
    fetch(path, init = {}) {
      const { token, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      if (json !== undefined) headers.set('content-type', 'application/json');
      return fetch(new URL(path, url), { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
    },
    admin: (args, extra) => spawnAdmin(args, extra).done,
    spawnAdmin,
    wipe,
    readLog,
    async destroy() {
      if (child && !exited) {
        child.kill('SIGKILL');
        await child.exited;
      }
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(logPath, { force: true });
    },
  };
}
