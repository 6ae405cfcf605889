import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { registerUser } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** Every answer of the app's origin carries the security headers (src/server/http/security-headers.ts). */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const base = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
};

function expectBase(response: Response): void {
  for (const [name, value] of Object.entries(base)) expect(response.headers.get(name)).toBe(value);
  expect(response.headers.get('strict-transport-security')).toBeNull();
}

describe('the web client', () => {
  // Pages of nothing (an unknown store page or project) are 404 with the same shell and headers (issue 29).
  test.each([
    ['/', 200],
    ['/store/projects/x', 404],
    ['/me', 200],
    ['/projects/a/branches/b', 404],
  ])('%s: strict CSP without inline script, no framing', async (path, status) => {
    const response = await server.fetch(path);
    expect(response.status).toBe(status);
    expectBase(response);
    const policy = response.headers.get('content-security-policy')!;
    const directives = new Map(policy.split(/;\s*/).map((item) => [item.split(' ')[0], item.split(' ').slice(1)]));
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    // Scripts: this origin and the hash of the one inline snippet (the theme, before first paint).
    const scripts = directives.get('script-src')!;
    expect(scripts[0]).toBe("'self'");
    expect(scripts.slice(1).every((source) => /^'sha256-[A-Za-z0-9+/]+={0,2}'$/.test(source))).toBe(true);
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).not.toContain('unsafe-eval');
    // Games are framed from the play origin only.
    expect(directives.get('frame-src')).toEqual([new URL(server.playUrl).origin]);
    // The page's inline scripts are exactly the hashed ones.
    const html = await response.text();
    const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map(
      (match) => `'sha256-${new Bun.CryptoHasher('sha256').update(match[1]!).digest('base64')}'`,
    );
    expect(inline.length).toBeGreaterThan(0);
    expect(scripts.slice(1).sort()).toEqual(inline.sort());
  });

  test('scripts and styles are split, hashed, compressed and cached for good', async () => {
    const html = await (await server.fetch('/')).text();
    const scripts = [...html.matchAll(/src="(\/[^"]+\.js)"/g)].map((match) => match[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const path of scripts) {
      const response = await server.fetch(path, { headers: { 'accept-encoding': 'gzip' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-encoding')).toBe('gzip');
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expectBase(response);
      // The code is minified: long lines, not one statement a line.
      const code = await response.text();
      expect(code.split('\n').length).toBeLessThan(code.length / 200 + 5);
    }
    // The page loads a fraction of the client: the rest comes in chunks when a screen needs it.
    expect(html).toMatch(/<script type="module"[^>]*src="\/chunk-[a-z0-9]+\.js"/);
  });

  test('a script of an older build is a 404, not the page', async () => {
    const response = await server.fetch('/chunk-doesnotexist.js');
    expect(response.status).toBe(404);
    expectBase(response);
  });

  test('the upload worker carries the headers too', async () => {
    const response = await server.fetch('/upload-worker.js');
    expect(response.status).toBe(200);
    expectBase(response);
  });
});

describe('the API', () => {
  test.each([
    ['GET', '/api/users/me'],
    ['GET', '/api/instance'],
    ['GET', '/health'],
    ['GET', '/api/no/such/route'],
    ['POST', '/api/auth/password'],
    ['GET', '/trpc/auth.session'],
  ])('%s %s: a sandboxed, unframeable answer', async (method, path) => {
    const response = await server.fetch(path, { method, ...(method === 'POST' ? { json: {} } : {}) });
    expectBase(response);
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'; sandbox");
  });

  test('signed-in answers too', async () => {
    const user = await registerUser(server);
    const response = await server.fetch('/api/users/me', { token: user.token });
    expect(response.status).toBe(200);
    expectBase(response);
  });
});

test('HSTS when PUBLIC_URL is https', async () => {
  const secure = await startTestServer({ PUBLIC_URL: 'https://games.example.com' });
  try {
    for (const path of ['/', '/api/instance']) {
      expect((await secure.fetch(path)).headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    }
  } finally {
    await secure.stop();
  }
});
