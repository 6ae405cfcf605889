import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { openDatabase } from '../../src/server/db/client.ts';
import { loadMigrations, migrateDatabase } from '../../src/server/db/migrate.ts';
import { sessions } from '../../src/server/db/schema/index.ts';
import { registerUser } from '../support/accounts.ts';
import { createTestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 29: an API token is not used by being created. Its last use is null until a request
 * authorises with it (REST and tRPC list it so), the first request is recorded at once, and a browser
 * session is used by the sign-in that opens it.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await registerUser(server, 'first-admin');
});
afterAll(() => server.stop());

type Listed = { id: string; started: string; lastUsed: string | null; requireSession: boolean };

async function listed(token: string, id: string): Promise<Listed | undefined> {
  const list = (await (await server.fetch('/api/users/me/sessions', { token })).json()) as Listed[];
  return list.find((item) => item.id === id);
}

describe('last use of API tokens', () => {
  test('a new token was never used: null in the creation reply and the lists of REST and tRPC', async () => {
    const user = await registerUser(server);
    const response = await server.fetch('/api/users/me/sessions', { method: 'POST', token: user.token, json: { title: 'CI' } });
    expect(response.status).toBe(200);
    const created = (await response.json()) as { session: Listed; token: string };
    expect(created.session.lastUsed).toBeNull();
    expect(created.session.started).toMatch(/^\d{4}-/);
    expect((await listed(user.token, created.session.id))?.lastUsed).toBeNull();
    const overTrpc = (await server.trpc(user.token).users.sessions.list.query()).find((item) => item.id === created.session.id);
    expect(overTrpc?.lastUsed).toBeNull();
    const [row] = await server.deps.db.select().from(sessions).where(eq(sessions.id, created.session.id));
    expect(row!.lastUsedAt).toBeNull();
  });

  test('its first request is recorded at once, even seconds after its creation', async () => {
    const user = await registerUser(server);
    const created = (await (await server.fetch('/api/users/me/sessions', { method: 'POST', token: user.token, json: {} })).json()) as { session: Listed; token: string };
    const before = Date.now();
    expect((await server.fetch('/api/users/me', { token: created.token })).status).toBe(200);
    const lastUsed = (await listed(user.token, created.session.id))?.lastUsed;
    expect(lastUsed).toEqual(expect.any(String));
    // The time of that request, not of the creation.
    expect(new Date(lastUsed!).getTime()).toBeGreaterThanOrEqual(before);
  });

  test('a refused request (an unknown token) marks nothing used', async () => {
    const user = await registerUser(server);
    const created = (await (await server.fetch('/api/users/me/sessions', { method: 'POST', token: user.token, json: {} })).json()) as { session: Listed; token: string };
    expect((await server.fetch('/api/users/me', { token: `${created.token}x` })).status).toBe(401);
    expect((await listed(user.token, created.session.id))?.lastUsed).toBeNull();
  });

  test('a browser session is used by the sign-in that opens it', async () => {
    const user = await registerUser(server);
    const list = (await (await server.fetch('/api/users/me/sessions', { token: user.token })).json()) as Listed[];
    const browser = list.find((item) => item.requireSession)!;
    expect(browser.lastUsed).toEqual(expect.any(String));
  });
});

describe('migration 0017', () => {
  test('tokens whose last use is their creation become never used; used ones and browser sessions keep theirs', async () => {
    const database = await createTestDatabase();
    const handle = await openDatabase({ url: database.url });
    try {
      const all = loadMigrations();
      const index = all.findIndex((migration) => migration.sql.some((statement) => statement.includes('"last_used_at" DROP NOT NULL')));
      expect(index).toBeGreaterThan(0);
      await migrateDatabase(handle, all.slice(0, index));
      await handle.db.execute(sql`insert into users (id, title) values ('u1', 'Ada')`);
      await handle.db.execute(sql`insert into sessions (id, user_id, token_hash, require_session) values ('never', 'u1', 'h1', false), ('browser', 'u1', 'h2', true)`);
      await handle.db.execute(sql`insert into sessions (id, user_id, token_hash, require_session, last_used_at) values ('used', 'u1', 'h3', false, now() + interval '1 hour')`);
      await migrateDatabase(handle, all);
      const rows = await handle.db.select({ id: sessions.id, lastUsedAt: sessions.lastUsedAt }).from(sessions).orderBy(sessions.id);
      expect(rows.map((row) => [row.id, row.lastUsedAt === null])).toEqual([
        ['browser', false],
        ['never', true],
        ['used', false],
      ]);
    } finally {
      await handle.close();
      await database.drop();
    }
  }, 60_000);
});
