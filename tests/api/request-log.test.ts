import { afterAll, beforeAll, expect, test } from 'bun:test';
import { signedFileUrl } from '../../src/server/domains/packages/downloads/signed-file-url.ts';
import { loggablePath } from '../../src/server/http/loggable-path.ts';
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

/** The lines logged for `path` since `from` (a line is written when its answer is ready). */
async function linesFor(path: string, from: number): Promise<Record<string, unknown>[]> {
  for (;;) {
    const found = lines.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.message === 'request' && String(entry.path).startsWith(path));
    if (found.length > 0) return found;
    await Bun.sleep(5);
  }
}

test('a signed download URL is logged with its signature masked (it works without a token)', async () => {
  const url = signedFileUrl(server.url, server.deps.keys, '01kexamplepackage000000000', 'zip', 'game.zip', 3600);
  const signature = new URL(url).pathname.split('/')[6]!;
  expect(signature.length).toBeGreaterThan(20);
  const from = lines.length;
  await fetch(url);
  const [entry] = await linesFor('/api/files/', from);
  expect(entry!.path).toBe(new URL(url).pathname.replace(signature, '…'));
  expect(lines.join('\n')).not.toContain(signature);
});

test('unmatched routes are logged with the 404 they answer', async () => {
  for (const [method, path] of [['GET', '/api/no-such-route'], ['DELETE', '/api/projects'], ['GET', '/trpc/no.such.procedure'], ['GET', '/content-images/nothing']] as const) {
    const from = lines.length;
    const response = await fetch(`${server.url}${path}`, { method });
    expect(response.status).toBe(404);
    const [entry] = await linesFor(path, from);
    expect(entry).toMatchObject({ method, path, status: 404 });
  }
});

test('play-origin paths lose their token too (the play server logs its failures)', () => {
  expect(loggablePath('/p/eyJhbGciOi.secret-token/index.html')).toBe('/p/…/index.html');
  expect(loggablePath('/api/files/pkg/zip/public/game.zip')).toBe('/api/files/pkg/zip/public/game.zip');
  expect(loggablePath('/api/projects/p1/packages')).toBe('/api/projects/p1/packages');
});
