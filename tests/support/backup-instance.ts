import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { openDatabase, pgliteDirOf } from '../../src/server/db/client.ts';
import { createTestDatabase, pgliteTemplate, type TestDatabase } from './database.ts';
import { findFreePort } from './free-port.ts';
import { fetchAt, inheritedEnv, mainScript, serverProcess } from './server-process.ts';

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
  const env: Record<string, string> = {
    ...inheritedEnv(),
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

  const server = serverProcess({ name: 'instance', url, dataDir, env, logPath });

  async function start(): Promise<void> {
    if (!server.running) await server.start();
  }

  async function stop(): Promise<void> {
    if (await server.stop(20_000)) throw new Error(`the server did not stop on SIGTERM:\n${server.readLog()}`);
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
      return server.running;
    },
    start,
    stop,
    fetch: (path, init) => fetchAt(url, path, init),
    admin: (args, extra) => spawnAdmin(args, extra).done,
    spawnAdmin,
    wipe,
    readLog: server.readLog,
    async destroy() {
      await server.kill();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(logPath, { force: true });
    },
  };
}
