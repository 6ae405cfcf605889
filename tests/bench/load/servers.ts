import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { findFreePort } from '../../support/free-port.ts';
import { inheritedEnv, serverProcess } from '../../support/server-process.ts';

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
  const env: Record<string, string> = {
    ...inheritedEnv(),
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
  const server = serverProcess({ name: `server ${name}`, url, dataDir, env, logPath, startTimeoutMs: timeoutMs });
  await server.start();
  const stop = async () => {
    await server.stop();
  };
  return { name, url, port, pid: server.pid!, dataDir, readLog: server.readLog, stop };
}

/** Waits until the process answers a client page (its bundle is built at start; the first page waits for it). */
export async function waitForClientBundle(server: LoadServer, timeoutMs = 120_000): Promise<void> {
  const response = await fetch(`${server.url}/store`, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('<script')) throw new Error(`GET /store on ${server.name}: ${response.status} ${text.slice(0, 200)}`);
}
