import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import postgres from 'postgres';
import { findFreePort } from '../../support/free-port.ts';

const mainScript = resolve(import.meta.dir, '..', '..', '..', 'src', 'server', 'main.ts');

/** A fresh database on a PostgreSQL server (its URL names any database there), dropped by drop(). */
export type BenchDatabase = { url: string; name: string; drop(): Promise<void> };

export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `cartridge_load_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const cleanup = postgres(serverUrl, { max: 1, onnotice: () => {} });
      try {
        await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await cleanup.end({ timeout: 5 });
      }
    },
  };
}

export type LoadServer = { name: string; url: string; port: number; pid: number; dataDir: string; readLog(): string; stop(): Promise<void> };

/**
 * What every process of the instance shares: the database, the secret key (signed download URLs made by
 * one process are checked by the other) and the blob store (a folder both reach: STORAGE_URL=file:/path).
 */
export type InstanceConfig = { databaseUrl: string; secretKey: string; blobDir: string };

/**
 * `bun src/server/main.ts` as its own process, production mode (the client bundle built at start), with a
 * DATA_DIR of its own (download cache, logs) under `root`. Resolves once /health answers 200.
 * Password hashes are made cheaper than the default (4 MiB, 1 pass): sign-ins are not part of the load,
 * and the seeding registers dozens of accounts.
 */
export async function startLoadServer(name: string, root: string, instance: InstanceConfig, timeoutMs = 60_000): Promise<LoadServer> {
  const dataDir = join(root, name);
  mkdirSync(dataDir, { recursive: true });
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const logPath = join(dataDir, 'server.log');
  const inherited = Object.fromEntries(['PATH', 'HOME', 'TMPDIR', 'LANG'].flatMap((key) => (process.env[key] === undefined ? [] : [[key, process.env[key]!]])));
  const env: Record<string, string> = {
    ...inherited,
    NODE_ENV: 'production',
    DATA_DIR: dataDir,
    PORT: String(port),
    PLAY_PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: instance.databaseUrl,
    STORAGE_URL: `file:${instance.blobDir}`,
    SECRET_KEY: instance.secretKey,
    LOG_LEVEL: 'error',
    DEFAULT_PRIVILEGES: 'create_project,store_publish',
    PASSWORD_HASH_MEMORY_KIB: '4096',
    PASSWORD_HASH_TIME_COST: '1',
  };
  const logFd = openSync(logPath, 'a');
  const child = Bun.spawn([process.execPath, mainScript], { cwd: dataDir, env, stdin: 'ignore', stdout: logFd, stderr: logFd });
  closeSync(logFd);
  const readLog = () => {
    try {
      return readFileSync(logPath, 'utf8');
    } catch {
      return '';
    }
  };
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
    if (!exited) {
      child.kill('SIGKILL');
      await child.exited;
    }
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server ${name} exited with ${child.exitCode} while starting:\n${readLog().slice(-2000)}`);
    const status = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`server ${name} did not answer /health within ${timeoutMs} ms:\n${readLog().slice(-2000)}`);
    }
    await Bun.sleep(100);
  }
  return { name, url, port, pid: child.pid, dataDir, readLog, stop };
}

/** Waits until the process answers a client page (its bundle is built at start; the first page waits for it). */
export async function waitForClientBundle(server: LoadServer, timeoutMs = 120_000): Promise<void> {
  const response = await fetch(`${server.url}/store`, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('<script')) throw new Error(`GET /store on ${server.name}: ${response.status} ${text.slice(0, 200)}`);
}
