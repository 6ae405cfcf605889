import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { AppRouter } from '../../src/server/trpc/router.ts';
import { bootDeps, closeDeps } from '../../src/server/boot.ts';
import { loadConfig } from '../../src/server/config.ts';
import type { Deps } from '../../src/server/deps.ts';
import type { Logger } from '../../src/server/logger.ts';
import { startServer } from '../../src/server/serve.ts';
import { createTestDatabase, pgliteTemplate } from './database.ts';

export type TestServer = {
  url: string;
  /** The play origin's listener (another port of the same process). */
  playUrl: string;
  deps: Deps;
  dataDir: string;
  /** fetch against the server; a relative path is resolved under its URL. */
  fetch(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  trpc(token?: string): ReturnType<typeof createTRPCClient<AppRouter>>;
  stop(): Promise<void>;
};

/** Starts the real server on a free port with a fresh database and a temporary data folder. */
export async function startTestServer(env: Record<string, string> = {}, options: { log?: Logger; idleTimeoutSeconds?: number } = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cartridge-test-'));
  const database = await createTestDatabase();
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SECRET_KEY: 'test-secret-key-that-is-long-enough-0123456789',
    DATABASE_URL: database.url,
    // The suite registers thousands of users: Argon2id at its production cost (64 MiB, 2 passes) took
    // ≈ 200 ms of a core each. Same code and algorithm at the lowest cost; tests/unit/password-hash.test.ts
    // checks the production default.
    PASSWORD_HASH_MEMORY_KIB: '64',
    PASSWORD_HASH_TIME_COST: '1',
    ...env,
  });
  const deps = await bootDeps(config, {
    inMemoryPglite: true,
    log: options.log,
    pgliteTemplate: database.url ? undefined : await pgliteTemplate(),
  });
  const server = startServer(deps, { port: 0, hostname: '127.0.0.1', idleTimeoutSeconds: options.idleTimeoutSeconds });
  const url = server.url;
  return {
    url,
    playUrl: server.playUrl,
    deps,
    dataDir,
    fetch(path, init = {}) {
      const { token, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      if (json !== undefined) headers.set('content-type', 'application/json');
      return fetch(new URL(path, url), { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
    },
    trpc(token) {
      return createTRPCClient<AppRouter>({
        links: [httpLink({ url: `${url}/trpc`, headers: () => (token ? { authorization: `Bearer ${token}` } : {}) })],
      });
    },
    async stop() {
      await server.stop();
      await closeDeps(deps);
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The environment of a second server process on `server`'s database (PostgreSQL): its data folder,
 * key and database, a port of its own, quiet, no job workers; `more` on top.
 */
export function secondProcessEnv(server: TestServer, more: Record<string, string> = {}): Record<string, string> {
  const databaseUrl = server.deps.config.databaseUrl;
  if (!databaseUrl) throw new Error('a second process needs PostgreSQL (DATABASE_URL)');
  return {
    DATA_DIR: server.dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    SECRET_KEY: server.deps.config.secretKey,
    DATABASE_URL: databaseUrl,
    JOB_WORKERS: '0',
    ...more,
  };
}
