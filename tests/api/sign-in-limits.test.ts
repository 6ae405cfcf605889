import { afterAll, beforeAll, expect, test } from 'bun:test';
import { registerUser } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** Small limits keep the test quick; the defaults (10 per account, 50 per address) are the same code. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: 'true', SIGN_IN_LIMIT_ACCOUNT: '3', SIGN_IN_LIMIT_ADDRESS: '5' });
});
afterAll(() => server.stop());

const signIn = (body: unknown, address: string) =>
  server.fetch('/api/auth/password', { method: 'POST', json: body, headers: { 'x-forwarded-for': address } });

test('failed sign-ins are limited per account, even for the right password afterwards', async () => {
  const user = await registerUser(server);
  for (let attempt = 0; attempt < 3; attempt++) {
    expect((await signIn({ name: user.name, password: 'wrong password' }, '198.51.100.7')).status).toBe(401);
  }
  const limited = await signIn({ name: user.name, password: user.password }, '198.51.100.8');
  expect(limited.status).toBe(429);
  expect(limited.headers.get('retry-after')).toBe('900');
  expect(await limited.json()).toEqual({ code: 'limit_exceeded', message: 'Too many failed sign-ins; try again in 15 minutes' });
  const other = await registerUser(server);
  expect((await signIn({ name: other.name, password: other.password }, '198.51.100.7')).status).toBe(200);
});

test('failed sign-ins are limited per address across accounts', async () => {
  for (let attempt = 0; attempt < 5; attempt++) {
    expect((await signIn({ name: `ghost${attempt}`, password: 'wrong password' }, '203.0.113.9')).status).toBe(401);
  }
  const user = await registerUser(server);
  expect((await signIn({ name: user.name, password: user.password }, '203.0.113.9')).status).toBe(429);
  expect((await signIn({ name: user.name, password: user.password }, '203.0.113.10')).status).toBe(200);
});

test('a successful sign-in clears the account counter', async () => {
  const user = await registerUser(server);
  for (let attempt = 0; attempt < 2; attempt++) await signIn({ name: user.name, password: 'wrong password' }, '192.0.2.1');
  expect((await signIn({ name: user.name, password: user.password }, '192.0.2.2')).status).toBe(200);
  for (let attempt = 0; attempt < 2; attempt++) await signIn({ name: user.name, password: 'wrong password' }, '192.0.2.3');
  expect((await signIn({ name: user.name, password: user.password }, '192.0.2.4')).status).toBe(200);
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
