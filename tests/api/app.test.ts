import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

describe('the process surface', () => {
  test('/health answers for load balancers', async () => {
    const response = await server.fetch('/health');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', version: '0.0.1' });
  });

  test('the OpenAPI document is generated from the route schemas', async () => {
    const response = await server.fetch('/api/openapi.json');
    expect(response.status).toBe(200);
    const document = await response.json();
    expect(document.info.version).toBe('0.0.1');
    for (const path of ['/api/auth/password', '/api/auth/session', '/api/auth/clear', '/api/users/me', '/api/users/me/sessions', '/api/users/me/sessions/{session}']) {
      expect(Object.keys(document.paths)).toContain(path);
    }
    const body = document.paths['/api/auth/password'].post.requestBody.content['application/json'].schema;
    expect(body.properties.intent.enum).toEqual(['login', 'register']);
    expect(body.required).toEqual(expect.arrayContaining(['name', 'password']));
    expect(Object.keys(document.paths).some((path) => path.startsWith('/trpc'))).toBe(false);
  });

  test('no CDN-backed reference page: /api/reference is gone, /api/openapi.json is a complete OpenAPI 3 document the docs link', async () => {
    const page = await server.fetch('/api/reference');
    expect(page.status).toBe(404);
    expect(await page.json()).toEqual({ code: 'not_found', message: 'not found' });

    const response = await server.fetch('/api/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    const text = await response.text();
    expect(text).not.toMatch(/cdn\.jsdelivr|unpkg\.com|scalar/i);
    const document = JSON.parse(text) as { openapi: string; info: { title: string; version: string }; paths: Record<string, Record<string, { responses?: unknown }>> };
    expect(document.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(document.info).toMatchObject({ title: 'Cartridge API', version: '0.0.1' });
    const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
    for (const [path, item] of Object.entries(document.paths)) {
      expect(path).toStartWith('/api/');
      for (const method of Object.keys(item)) if (methods.has(method)) expect(item[method]!.responses ?? {}).toBeObject();
    }
    // Every $ref names something the document holds.
    const refs = [...text.matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1]!);
    for (const ref of refs) {
      expect(ref).toStartWith('#/');
      const target = ref.slice(2).split('/').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
      expect(target).toBeDefined();
    }

    const docs = (await (await server.fetch('/api/documentation/en/api')).json()) as { markdown: string };
    expect(docs.markdown).toContain('(/api/openapi.json)');
    expect(docs.markdown).not.toContain('/api/reference');
  });

  test('an unknown API path is a catalogued not_found', async () => {
    const response = await server.fetch('/api/no/such/thing');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: 'not_found', message: 'not found' });
  });

  test('the client is served at / and for deep links', async () => {
    // A deep link to a project nobody can see is the shell too, answered 404 (issue 29: no soft 404).
    for (const [path, status] of [['/', 200], ['/docs/en/api', 200], ['/projects/some-project/branches/main', 404], ['/me', 200]] as const) {
      const response = await server.fetch(path);
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(await response.text()).toContain('<div id="root">');
    }
  });

  test('/favicon.ico is the built icon (crawlers ask for it without reading the page), not the page', async () => {
    const response = await server.fetch('/favicon.ico');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toStartWith('image/');
    expect(response.headers.get('cache-control')).toBe('public, max-age=86400');
    const bytes = new Uint8Array(await response.arrayBuffer());
    // An ICO file: reserved 0, type 1 (icon), at least one image.
    expect([...bytes.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    expect(bytes[4]! + bytes[5]! * 256).toBeGreaterThan(0);
    const page = await (await server.fetch('/')).text();
    const linked = /<link rel="icon" href="([^"]+\.ico)"/.exec(page)?.[1];
    expect(linked).toBeDefined();
    expect(new Uint8Array(await (await server.fetch(linked!)).arrayBuffer())).toEqual(bytes);
    expect((await server.fetch('/favicon.ico', { headers: { 'if-none-match': response.headers.get('etag')! } })).status).toBe(304);
  });

  test('/robots.txt and /favicon.ico ignore hostile input: queries with NUL and control characters, huge and nested bodies, any caller', async () => {
    const robots = await (await server.fetch('/robots.txt')).text();
    const icon = new Uint8Array(await (await server.fetch('/favicon.ico')).arrayBuffer());
    const nested = '['.repeat(100_000) + ']'.repeat(100_000);
    for (const query of ['', '?a=%00', '?lang=%01%7f', `?x=${'y'.repeat(8000)}`]) {
      for (const init of [{}, { token: 'not-a-token' }, { method: 'POST', body: nested }, { method: 'POST', body: 'x'.repeat(2_000_000) }]) {
        const text = await server.fetch(`/robots.txt${query}`, init);
        expect(text.status).toBeLessThan(500);
        if (text.status === 200) expect(await text.text()).toBe(robots);
        const favicon = await server.fetch(`/favicon.ico${query}`, init);
        expect(favicon.status).toBeLessThan(500);
        if (favicon.status === 200) expect(new Uint8Array(await favicon.arrayBuffer())).toEqual(icon);
      }
    }
  });
});
