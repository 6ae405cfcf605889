import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { inArray } from 'drizzle-orm';
import { signInFailures } from '../../src/server/db/schema/index.ts';
import { forgetSignInCountersJob } from '../../src/server/domains/auth/sign-in-counters.job.ts';
import type { Job } from '../../src/server/jobs/queue.ts';
import { bootDeps, closeDeps } from '../../src/server/boot.ts';
import { loadConfig } from '../../src/server/config.ts';
import { startServer } from '../../src/server/serve.ts';
import { registerUser } from '../support/accounts.ts';
import { secondProcessEnv, startTestServer, type TestServer } from '../support/server.ts';
import { directJobContext } from '../support/job-context.ts';

/** Small limits keep the test quick; the defaults (10 per account, 50 per address) are the same code. */
const perAccount = 3;
const limits = { TRUST_PROXY: 'true', SIGN_IN_LIMIT_ACCOUNT: String(perAccount), SIGN_IN_LIMIT_ADDRESS: '5' };
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(limits);
});
afterAll(() => server.stop());

const signInAt = (url: string, body: unknown, address: string) =>
  fetch(new URL('/api/auth/password', url), { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-forwarded-for': address } });
const signIn = (body: unknown, address: string) => signInAt(server.url, body, address);

const statusCounts = (statuses: number[]) => statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

test('failed sign-ins from one address are limited per account, even for the right password afterwards', async () => {
  const user = await registerUser(server);
  for (let attempt = 0; attempt < perAccount; attempt++) {
    expect((await signIn({ name: user.name, password: 'wrong password' }, '198.51.100.7')).status).toBe(401);
  }
  const limited = await signIn({ name: user.name, password: user.password }, '198.51.100.7');
  expect(limited.status).toBe(429);
  expect(limited.headers.get('retry-after')).toBe('900');
  expect(await limited.json()).toEqual({ code: 'limit_exceeded', message: 'Too many failed sign-ins; try again in 15 minutes' });
  const other = await registerUser(server);
  expect((await signIn({ name: other.name, password: other.password }, '198.51.100.7')).status).toBe(200);
});

test('an account locked by guesses from elsewhere still signs in from an address that has not failed on it', async () => {
  const user = await registerUser(server);
  for (let attempt = 0; attempt < perAccount; attempt++) await signIn({ name: user.name, password: 'wrong password' }, '198.51.100.20');
  expect((await signIn({ name: user.name, password: user.password }, '198.51.100.21')).status).toBe(200);
  // Locked again (the success cleared the account's counter): an address that fails once on the locked
  // account is locked out of it too.
  for (let attempt = 0; attempt < perAccount; attempt++) {
    expect((await signIn({ name: user.name, password: 'wrong password' }, '198.51.100.24')).status).toBe(401);
  }
  expect((await signIn({ name: user.name, password: 'wrong password' }, '198.51.100.22')).status).toBe(401);
  expect((await signIn({ name: user.name, password: user.password }, '198.51.100.22')).status).toBe(429);
  expect((await signIn({ name: user.name, password: user.password }, '198.51.100.23')).status).toBe(200);
});

test('guesses sent at once consume one attempt each: no more wrong answers than the limit', async () => {
  const user = await registerUser(server);
  const statuses = await Promise.all(
    Array.from({ length: 45 }, async () => (await signIn({ name: user.name, password: 'wrong password' }, '198.51.100.30')).status),
  );
  expect(statusCounts(statuses)).toEqual({ 401: perAccount, 429: 45 - perAccount });
  expect((await signIn({ name: user.name, password: user.password }, '198.51.100.30')).status).toBe(429);
  expect((await signIn({ name: user.name, password: user.password }, '198.51.100.31')).status).toBe(200);
});

test('failed sign-ins are limited per address across accounts', async () => {
  for (let attempt = 0; attempt < 5; attempt++) {
    expect((await signIn({ name: `ghost${attempt}`, password: 'wrong password' }, '203.0.113.9')).status).toBe(401);
  }
  const user = await registerUser(server);
  expect((await signIn({ name: user.name, password: user.password }, '203.0.113.9')).status).toBe(429);
  expect((await signIn({ name: user.name, password: user.password }, '203.0.113.10')).status).toBe(200);
});

test('a successful sign-in clears the account counter and gives the address its attempt back', async () => {
  const user = await registerUser(server);
  for (let attempt = 0; attempt < 2; attempt++) await signIn({ name: user.name, password: 'wrong password' }, '192.0.2.1');
  expect((await signIn({ name: user.name, password: user.password }, '192.0.2.1')).status).toBe(200);
  for (let attempt = 0; attempt < 2; attempt++) await signIn({ name: user.name, password: 'wrong password' }, '192.0.2.1');
  expect((await signIn({ name: user.name, password: user.password }, '192.0.2.1')).status).toBe(200);
  // 4 failures and 2 successes from this address: one more failure is still allowed (limit 5).
  expect((await signIn({ name: 'ghost-x', password: 'wrong password' }, '192.0.2.1')).status).toBe(401);
  expect((await signIn({ name: 'ghost-y', password: 'wrong password' }, '192.0.2.1')).status).toBe(429);
});

test('without TRUST_PROXY the forwarded address is ignored', async () => {
  const direct = await startTestServer({ SIGN_IN_LIMIT_ADDRESS: '2' });
  try {
    for (const address of ['192.0.2.10', '192.0.2.11']) {
      await direct.fetch('/api/auth/password', { method: 'POST', json: { name: 'ghost', password: 'wrong password' }, headers: { 'x-forwarded-for': address } });
    }
    const response = await direct.fetch('/api/auth/password', { method: 'POST', json: { name: 'another-ghost', password: 'wrong password' }, headers: { 'x-forwarded-for': '192.0.2.12' } });
    expect(response.status).toBe(429);
  } finally {
    await direct.stop();
  }
});

// Two processes on one PostgreSQL database share the counters: guesses split between them still stop at the limit.
if (process.env.DATABASE_URL) describe('two processes on one PostgreSQL database', () => {
  test('concurrent guesses through both processes consume one shared budget', async () => {
    const other = await bootDeps(
      loadConfig(secondProcessEnv(server, { ...limits, PASSWORD_HASH_MEMORY_KIB: '64', PASSWORD_HASH_TIME_COST: '1' })),
    );
    const otherServer = startServer(other, { port: 0, hostname: '127.0.0.1' });
    try {
      const user = await registerUser(server);
      const statuses = await Promise.all(
        Array.from({ length: 30 }, async (_, index) =>
          (await signInAt(index % 2 ? otherServer.url : server.url, { name: user.name, password: 'wrong password' }, '198.51.100.40')).status,
        ),
      );
      expect(statusCounts(statuses)).toEqual({ 401: perAccount, 429: 30 - perAccount });
    } finally {
      await otherServer.stop();
      await closeDeps(other);
    }
  });
});

test('the hourly sweep forgets counters whose window ended, and only those', async () => {
  const old = new Date(Date.now() - 16 * 60_000);
  await server.deps.db.insert(signInFailures).values([
    { key: 'account:sweep-old', failures: 4, windowStartedAt: old },
    { key: 'address:192.0.2.200', failures: 9, windowStartedAt: old },
    { key: 'account:sweep-new', failures: 2, windowStartedAt: new Date() },
  ]);
  const job = { id: 'sweep', kind: forgetSignInCountersJob.kind, payload: {} } as Job;
  const result = await forgetSignInCountersJob.execute(server.deps, job, directJobContext());
  expect(result.signInCountersForgotten).toBeGreaterThanOrEqual(2);
  const left = await server.deps.db
    .select({ key: signInFailures.key })
    .from(signInFailures)
    .where(inArray(signInFailures.key, ['account:sweep-old', 'address:192.0.2.200', 'account:sweep-new']));
  expect(left.map((row) => row.key)).toEqual(['account:sweep-new']);
});
