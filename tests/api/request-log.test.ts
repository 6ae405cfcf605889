import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createLogger } from '../../src/server/logger.ts';
import { registerUser } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const lines: string[] = [];
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { log: createLogger('info', (line) => lines.push(line)) });
});
afterAll(() => server.stop());

test('one structured line per request, without tokens or query strings', async () => {
  const user = await registerUser(server, 'logged-user');
  lines.length = 0;
  await server.fetch('/api/users/me?token=secret-in-query', { token: user.token });
  await server.fetch('/api/users/me', { token: 'cs_wrong-token-value' });
  await Bun.sleep(20);
  // A line is written after its response is sent, so the registration's own line may still arrive here.
  const requests = lines.map((line) => JSON.parse(line)).filter((entry) => entry.message === 'request' && entry.path !== '/api/auth/password');
  expect(requests).toHaveLength(2);
  expect(requests[0]).toMatchObject({ level: 'info', method: 'GET', path: '/api/users/me', status: 200 });
  expect(requests[1]).toMatchObject({ path: '/api/users/me', status: 401 });
  expect(typeof requests[0].ms).toBe('number');
  const all = lines.join('\n');
  for (const secret of [user.token, 'secret-in-query', 'cs_wrong-token-value', user.password]) expect(all).not.toContain(secret);
});
