import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Every JSON route reads its body through one guard (src/server/http/body-guard.ts): JSON only,
 * bounded while streaming, nesting depth checked in one pass before any schema walks it.
 */
let server: TestServer;
let user: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  user = await registerUser(server);
});
afterAll(() => server.stop());

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const post = (path: string, body: BodyInit, contentType = 'application/json', token?: string) =>
  server.fetch(path, { method: 'POST', body, headers: { 'content-type': contentType }, token });

describe('deeply nested bodies', () => {
  test.each([
    ['REST sign-in, arrays', '/api/auth/password', nested(100_000)],
    ['REST sign-in, objects', '/api/auth/password', nestedObjects(100_000)],
    ['REST project creation', '/api/projects', nested(100_000)],
  ])('%s: 400 Invalid `body`', async (_, path, body) => {
    const response = await post(path, body, 'application/json', user.token);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'bad_param', message: 'Invalid `body`' });
  });

  test('tRPC: the same refusal in tRPC form', async () => {
    const response = await post('/trpc/auth.password', nested(100_000));
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.data).toMatchObject({ code: 'bad_param', httpStatus: 400, path: 'auth.password' });
    expect(body.error.message).toBe('Invalid `body`');
  });

  test('64 levels are read (and then judged by the schema); 65 are refused before it', async () => {
    const deepest = await post('/api/auth/password', nested(64));
    expect(deepest.status).toBe(400);
    expect(await deepest.json()).toEqual({ code: 'bad_param', message: 'Invalid `body`' });
    const tooDeep = await post('/api/auth/password', nested(65));
    expect(await tooDeep.json()).toMatchObject({ details: { reason: 'nested deeper than 64 levels' } });
  });

  test('brackets inside strings do not count as nesting', async () => {
    const response = await post('/api/projects', JSON.stringify({ title: `[{"${'['.repeat(80)}\\"` }), 'application/json', user.token);
    expect(response.status).toBe(200);
  });

  test('/health answers within a second while four nested bodies are in flight', async () => {
    const body = nested(100_000);
    const hostile = Array.from({ length: 4 }, () => post('/api/auth/password', body).then((response) => response.status));
    const started = performance.now();
    const health = await server.fetch('/health', { signal: AbortSignal.timeout(5000) });
    const elapsed = performance.now() - started;
    expect(health.status).toBe(200);
    expect(elapsed).toBeLessThan(1000);
    expect(await Promise.all(hostile)).toEqual([400, 400, 400, 400]);
  });
});

describe('body size', () => {
  test('a JSON body over 1 MiB is refused with 413 from its announced length', async () => {
    const response = await post('/api/auth/password', JSON.stringify({ name: 'someone', password: 'x'.repeat(1_100_000) }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ code: 'limit_exceeded', message: 'Request body too large: at most 1048576 bytes', details: { limit: 1048576 } });
    expect(response.headers.get('retry-after')).toBeNull();
  });

  test('a streamed body without a length is cut off at the limit, not read to its end', async () => {
    const total = 256 * 1024 * 1024;
    let sent = 0;
    const piece = new Uint8Array(64 * 1024).fill(0x20);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= total) return controller.close();
        sent += piece.byteLength;
        controller.enqueue(piece);
      },
    });
    const response = await server.fetch('/api/auth/password', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      signal: AbortSignal.timeout(20_000),
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(sent).toBeLessThan(total / 4);
  });

  test('tRPC calls have the same limit', async () => {
    const response = await post('/trpc/auth.password', JSON.stringify({ name: 'someone', password: 'x'.repeat(1_100_000) }));
    expect(response.status).toBe(413);
    expect((await response.json()).error.data).toMatchObject({ code: 'limit_exceeded', httpStatus: 413 });
  });

  test('finalize, which lists every part, may be larger than 1 MiB', async () => {
    const parts = Array.from({ length: 14_000 }, (_, part) => ({ part, hash: 'a'.repeat(40), size: 8_388_608 }));
    const body = JSON.stringify({ token: 'not-a-real-token', parts });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const response = await server.fetch('/api/projects/p/packages/p/finalize', { method: 'PUT', body, headers: { 'content-type': 'application/json' } });
    // Read whole and judged on its merits: the token is wrong.
    expect(response.status).not.toBe(413);
    expect(response.status).toBeLessThan(500);
  });
});

describe('JSON only', () => {
  test.each([
    ['an HTML form', 'application/x-www-form-urlencoded', 'name=someone&password=12345678'],
    ['a text/plain form', 'text/plain', '{"name":"someone","password":"long enough password"}'],
    ['a multipart form', 'multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nsomeone\r\n--x--\r\n'],
  ])('%s is refused with 415 on REST and tRPC', async (_, contentType, body) => {
    const rest = await post('/api/auth/password', body, contentType);
    expect(rest.status).toBe(415);
    expect(await rest.json()).toEqual({ code: 'not_supported', message: 'Request bodies must be JSON (content-type: application/json)' });
    const trpc = await post('/trpc/auth.password', body, contentType);
    expect(trpc.status).toBe(415);
    expect((await trpc.json()).error.data).toMatchObject({ code: 'not_supported', httpStatus: 415 });
  });

  test('a body without a content type is refused; no body at all is fine', async () => {
    const typeless = await server.fetch('/api/projects', { method: 'POST', body: new Blob(['{"title":"x"}']), token: user.token });
    expect(typeless.status).toBe(415);
    const empty = await server.fetch('/api/auth/clear', { method: 'POST', token: (await registerUser(server)).token });
    expect(empty.status).toBe(200);
  });

  test('application/json with a charset and +json types are JSON', async () => {
    const charset = await post('/api/projects', JSON.stringify({ title: 'Charset' }), 'application/json; charset=utf-8', user.token);
    expect(charset.status).toBe(200);
    const vendor = await post('/api/projects', JSON.stringify({ title: 'Vendor' }), 'application/vnd.cartridge+json', user.token);
    expect(vendor.status).toBe(200);
  });

  test('invalid UTF-8 and broken JSON are Invalid `body`', async () => {
    const badUtf8 = await post('/api/projects', new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]), 'application/json', user.token);
    expect(badUtf8.status).toBe(400);
    const broken = await post('/api/projects', '{"title":', 'application/json', user.token);
    expect(await broken.json()).toEqual({ code: 'bad_param', message: 'Invalid `body`' });
  });
});
