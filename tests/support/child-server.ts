import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, pgliteDirOf, type Database } from '../../src/server/db/client.ts';
import { createTestDatabase, pgliteTemplate, type TestDatabase } from './database.ts';
import { findFreePort } from './free-port.ts';
import { fetchAt, inheritedEnv, serverProcess } from './server-process.ts';

/**
 * The real server as a separate process (`bun src/server/main.ts`), for crash tests: kill() is a
 * SIGKILL (no shutdown hook runs), restart() starts it again on the same data: PGlite and blobs on
 * disk in its DATA_DIR, or (with DATABASE_URL) its own fresh PostgreSQL database, kept until stop().
 */
export type ChildServer = {
  /** http://127.0.0.1:PORT (the same port across restarts). */
  url: string;
  dataDir: string;
  /** The process's environment: a second process or an `admin` command on the same data starts from it. */
  env: Record<string, string>;
  fetch(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  /** True while the current process runs. */
  readonly running: boolean;
  /** The current process's pid (to stop and continue it: SIGSTOP, SIGCONT), undefined while it is down. */
  readonly pid: number | undefined;
  /** kill -9, and wait until the process is gone. */
  kill(): Promise<void>;
  /** Starts the process again (after kill) and waits for /health. */
  restart(): Promise<void>;
  /**
   * Opens the server's database in this process for assertions: PostgreSQL at any time, PGlite (one
   * process at a time) only while the server is down; nothing is changed.
   */
  withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T>;
  /** What the processes printed so far (for failure messages). */
  readLog(): string;
  /** Kills the process if it runs, drops the database, removes the data folder. */
  stop(): Promise<void>;
};

export type ChildServerOptions = {
  env?: Record<string, string>;
  startTimeoutMs?: number;
  /** The data folder to make and use (a folder on a disk of the test's own), removed at stop(). */
  dataDir?: string;
  /** PGlite in the data folder even when the suite runs on PostgreSQL: the database's disk is the test's. */
  embedded?: boolean;
};

export async function startChildServer(options: ChildServerOptions = {}): Promise<ChildServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'cartridge-child-'));
  mkdirSync(dataDir, { recursive: true });
  // A data folder of the test's own may be a disk it fills: the log goes beside it then, not into it.
  const logDir = options.dataDir ? mkdtempSync(join(tmpdir(), 'cartridge-child-log-')) : dataDir;
  const logPath = join(logDir, 'server.log');
  let database: TestDatabase | undefined;
  try {
    database = options.embedded ? { url: undefined, drop: async () => {} } : await createTestDatabase();
    // PGlite's first init and the migrations cost seconds: start the data folder from the migrated template.
    if (!database.url) await seedPglite(dataDir);
  } catch (error) {
    await database?.drop();
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
    SECRET_KEY: 'child-secret-key-that-is-long-enough-0123456789',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...options.env,
  };

  const child = serverProcess({ name: 'child', url, dataDir, env, logPath, startTimeoutMs: options.startTimeoutMs ?? 30_000 });

  try {
    await child.start();
  } catch (error) {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }

  return {
    url,
    dataDir,
    env,
    get running() {
      return child.running;
    },
    get pid() {
      return child.pid;
    },
    fetch: (path, init) => fetchAt(url, path, init),
    kill: () => child.kill(),
    async restart() {
      await child.kill();
      await child.start();
    },
    async withDatabase(fn) {
      if (!database!.url && child.running) throw new Error('PGlite has one process: kill the server before opening its database');
      const handle = await openDatabase(database!.url ? { url: database!.url } : { pgliteDir: pgliteDirOf(dataDir) });
      try {
        return await fn(handle.db);
      } finally {
        await handle.close();
      }
    },
    readLog: child.readLog,
    async stop() {
      await child.kill();
      await database!.drop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(logDir, { recursive: true, force: true });
    },
  };
}

/** Unpacks the migrated PGlite template into DATA_DIR/db (the server then only checks the migrations). */
async function seedPglite(dataDir: string): Promise<void> {
  const handle = await openDatabase({ pgliteDir: pgliteDirOf(dataDir), pgliteTemplate: await pgliteTemplate() });
  await handle.close();
}
