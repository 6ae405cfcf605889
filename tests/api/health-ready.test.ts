import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { readiness } from '../../src/server/http/health.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 28: /health took up to 9.6 s under load. It is now Bun's static answer (no JavaScript, no
 * database: http/health.ts), and /ready says "busy" when the event loop lags or the database does not
 * answer. The speed goal is measured by `bun run bench:health`; here, the structure.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

type Ready = { status: string; reason?: string };
async function ready(): Promise<{ status: number; body: Ready; cacheControl: string | null }> {
  const response = await server.fetch('/ready');
  return { status: response.status, body: (await response.json()) as Ready, cacheControl: response.headers.get('cache-control') };
}

/**
 * Takes every connection the server's database has until release(): PGlite's one connection by a
 * transaction left open; PostgreSQL's pool of 10 by statements waiting on a lock this test holds.
 */
async function holdDatabase(): Promise<{ release(): Promise<void> }> {
  const { database } = server.deps;
  if (database.kind === 'pglite') {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const transaction = database.db.transaction(async () => {
      entered();
      await gate;
    });
    await inside;
    return {
      async release() {
        open();
        await transaction;
      },
    };
  }
  const holder = postgres(server.deps.config.databaseUrl!, { max: 1, onnotice: () => {} });
  const key = 28_000_000 + Math.floor(Math.random() * 1000);
  await holder`select pg_advisory_lock(${key})`;
  // (drizzle runs a query when it is awaited: then() sends each now.)
  const waiting = Array.from({ length: 10 }, () => database.db.execute(sql`select pg_advisory_xact_lock(${key})`).then(() => {}));
  // Every pooled connection is in use once PostgreSQL shows 10 backends waiting on the lock.
  for (;;) {
    const [row] = await holder`select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = ${key} and not granted`;
    if (row!.n >= 10) break;
    await Bun.sleep(10);
  }
  return {
    async release() {
      await holder`select pg_advisory_unlock(${key})`;
      await Promise.all(waiting);
      await holder.end();
    },
  };
}

describe('/health and /ready', () => {
  test('idle: /health is ok (no-store, the API headers), /ready is ready', async () => {
    const health = await server.fetch('/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', version: '0.0.1' });
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(health.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'; sandbox");
    expect(await ready()).toEqual({ status: 200, body: { status: 'ready' }, cacheControl: 'no-store' });
  });

  test('hostile calls: other methods are answered as any unknown path, a body or a NUL query changes nothing, a huge query is refused', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const unknown = await server.fetch('/no-such-path', { method: 'POST', body: deep, headers: { 'content-type': 'application/json' } });
    for (const path of ['/health', '/ready']) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const response = await server.fetch(path, { method, body: deep, headers: { 'content-type': 'application/json' } });
        expect(`${method} ${path} ${response.status} ${response.headers.get('content-type')}`).toBe(`${method} ${path} ${unknown.status} ${unknown.headers.get('content-type')}`);
      }
      expect((await server.fetch(`${path}?x=%00%01&y[z]=1`)).status).toBe(200);
      expect((await server.fetch(path, { method: 'HEAD' })).status).toBe(200);
      expect((await server.fetch(`${path}?x=${'a'.repeat(70_000)}`)).status).toBe(431);
    }
    expect(await ready()).toEqual({ status: 200, body: { status: 'ready' }, cacheControl: 'no-store' });
  });

  test('with every database connection taken, /health still answers and /ready says busy, naming why; ready again after', async () => {
    const held = await holdDatabase();
    try {
      const health = await server.fetch('/health');
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', version: '0.0.1' });
      const busy = await ready();
      expect(busy.status).toBe(503);
      expect(busy.body).toEqual({ status: 'busy', reason: `the database did not answer within ${readiness.databaseTimeoutMs} ms (its connections are all in use)` });
    } finally {
      await held.release();
    }
    expect((await ready()).body).toEqual({ status: 'ready' });
  });

  test('after the event loop stalled (synchronous work past the limit), /ready says busy naming the lag', async () => {
    const until = performance.now() + readiness.maxLagMs + 300;
    while (performance.now() < until) {
      // the stall: nothing else runs in this process meanwhile
    }
    const busy = await ready();
    expect(busy.status).toBe(503);
    expect(busy.body.status).toBe('busy');
    expect(busy.body.reason).toMatch(new RegExp(`^the event loop lagged \\d+ ms \\(limit ${readiness.maxLagMs} ms\\)$`));
  });
});
