import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/server/db/client.ts';
import { loadMigrations, migrateDatabase } from '../../src/server/db/migrate.ts';
import { apiVersion } from '../../src/server/api-version.ts';
import { registerUser } from '../support/accounts.ts';
import { createScratchDatabase, errorsOf, startCluster, type Cluster, type ClusterNode } from '../support/cluster.ts';

/**
 * Starting and restarting processes of one instance (docs/en/scale-out.md): three processes started
 * at the same moment on an empty database all come up (each migrates at start, under an advisory
 * lock: one applies the migrations, the others find them applied); /health; the web client is the
 * same on every process (a page from one names scripts another serves); a rolling restart.
 */

let cluster: Cluster;

beforeAll(async () => {
  cluster = await startCluster({ nodes: 3 });
}, 90_000);
afterAll(() => cluster?.stop());

describe('first start of several processes on an empty database', () => {
  test('all three came up; every migration was applied exactly once; nobody logged an error', async () => {
    const migrations = loadMigrations();
    const applied = (await cluster.db.execute(sql`select hash from drizzle.__drizzle_migrations order by id`)) as unknown as { hash: string }[];
    expect(applied.map((row) => row.hash)).toEqual(migrations.map((migration) => migration.hash));
    for (const node of cluster.nodes) {
      expect(node.running).toBe(true);
      expect(node.logEntries().filter((entry) => entry.message === 'listening')).toHaveLength(1);
      expect(errorsOf(node)).toEqual([]);
    }
  });

  test('the same migration from four connections at the very same moment on another empty database: all succeed, each migration once', async () => {
    // The processes above started within milliseconds of each other; here the race is certain.
    const scratch = await createScratchDatabase('cartridge_scale_migrate');
    const handles = await Promise.all([1, 2, 3, 4].map(() => openDatabase({ url: scratch.url })));
    try {
      await Promise.all(handles.map((handle) => migrateDatabase(handle)));
      const applied = (await handles[0]!.db.execute(sql`select hash from drizzle.__drizzle_migrations order by id`)) as unknown as { hash: string }[];
      expect(applied.map((row) => row.hash)).toEqual(loadMigrations().map((migration) => migration.hash));
    } finally {
      await Promise.all(handles.map((handle) => handle.close()));
      await scratch.drop();
    }
  });

  test('/health answers every process the same, uncached', async () => {
    for (const node of cluster.nodes) {
      const response = await node.fetch('/health');
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toEqual({ status: 'ok', version: apiVersion });
    }
  });
});

describe('the web client', () => {
  test("every process serves the same page, and the scripts and styles one page names, another serves byte for byte", async () => {
    const pageOf = async (node: ClusterNode) => {
      const response = await node.fetch('/projects');
      expect(response.status).toBe(200);
      return response.text();
    };
    const pages = await Promise.all(cluster.nodes.map(pageOf));
    for (const page of pages.slice(1)) expect(page).toBe(pages[0]!);

    // The page's assets, then what the scripts import (lazily loaded routes), a few levels deep.
    const named = (text: string) => [...text.matchAll(/["'(]\/?((?:[\w.-]+\/)*[\w.-]+-[a-z0-9]{6,}\.(?:js|css))["')]/g)].map((match) => `/${match[1]!.replace(/^\.\//, '')}`);
    const seen = new Set<string>();
    let next = named(pages[0]!);
    expect(next.length).toBeGreaterThan(0);
    for (let depth = 0; depth < 4 && next.length > 0; depth++) {
      const found: string[] = [];
      for (const path of next) {
        if (seen.has(path)) continue;
        seen.add(path);
        const [first, ...others] = await Promise.all(
          cluster.nodes.map(async (node) => {
            const response = await node.fetch(path);
            return { node: node.name, status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) };
          }),
        );
        for (const other of [first!, ...others]) expect({ path, node: other.node, status: other.status }).toEqual({ path, node: other.node, status: 200 });
        for (const other of others) expect({ path, node: other.node, same: Buffer.from(other.bytes).equals(Buffer.from(first!.bytes)) }).toEqual({ path, node: other.node, same: true });
        if (path.endsWith('.js')) found.push(...named(new TextDecoder().decode(first!.bytes)));
      }
      next = found;
    }
    expect(seen.size).toBeGreaterThan(1);
  }, 60_000);
});

describe('a rolling restart', () => {
  test('while A stops and starts again, B and C answer every request; A comes back on the same database and honours what B did meanwhile', async () => {
    const [a, b, c] = cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
    const user = await registerUser(b.server);
    let serving = true;
    const statuses: number[] = [];
    const traffic = (async () => {
      for (let index = 0; serving; index++) {
        const response = await (index % 2 ? b : c).fetch('/api/users/me', { token: user.token });
        statuses.push(response.status);
        await response.arrayBuffer();
        await Bun.sleep(10);
      }
    })();
    try {
      await a.stop(); // SIGTERM: a clean stop
      expect(a.running).toBe(false);
      const later = await registerUser(c.server);
      await a.restart();
      expect((await a.fetch('/api/users/me', { token: later.token })).status).toBe(200);
      expect((await a.fetch('/api/users/me', { token: user.token })).status).toBe(200);
    } finally {
      serving = false;
      await traffic;
    }
    expect(statuses.length).toBeGreaterThan(10);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    // The restart found the migrations applied.
    const applied = (await cluster.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`)) as unknown as { n: number }[];
    expect(Number(applied[0]!.n)).toBe(loadMigrations().length);
    expect(a.logEntries().filter((entry) => entry.message === 'stopping')).toHaveLength(1);
    expect(a.logEntries().filter((entry) => entry.message === 'listening')).toHaveLength(2);
    expect(errorsOf(a)).toEqual([]);
  }, 60_000);
});
