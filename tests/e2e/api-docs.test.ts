import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startE2E, visit, type E2E } from './support/app.ts';

/**
 * Item: the API reference works offline. Cartridge serves no CDN-backed reference page (/api/reference
 * is gone); the in-app docs page about the API links the OpenAPI document, and both load with every
 * address but the instance's own closed.
 */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

test('with the network closed, /docs/en/api renders and its OpenAPI link opens the document; /api/reference is no page', async () => {
  const { page, context } = await e2e.open();
  const origin = new URL(e2e.server.url).origin;
  const elsewhere: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    elsewhere.push(url);
    return route.abort('internetdisconnected');
  });

  await visit(page, '/docs/en/api', 'page_docs');
  const link = page.locator('main article a[href="/api/openapi.json"]');
  await link.first().waitFor({ timeout: 10_000 });
  expect(await page.locator('main article h1').textContent()).toBe('The HTTP API');
  await Promise.all([page.waitForURL((url) => url.pathname === '/api/openapi.json', { timeout: 10_000 }), link.first().click()]);
  const document = JSON.parse((await page.locator('body').textContent()) ?? '') as { openapi: string; info: { version: string }; paths: Record<string, unknown> };
  expect(document.openapi).toStartWith('3.');
  expect(document.info.version).toBe('0.0.1');
  expect(Object.keys(document.paths)).toContain('/api/auth/password');

  const reference = await page.goto('/api/reference');
  expect(reference?.status()).toBe(404);
  expect(elsewhere).toEqual([]);
  await context.close();
}, 30_000);
