import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startE2E, visit, type E2E } from './support/app.ts';

/** APP_NAME and SOCIAL_LINKS reach the page: titles, header and footer follow the instance. */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E({ APP_NAME: 'Pixel Forge', SOCIAL_LINKS: 'Forum=https://forum.example.com/' });
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

test('the instance name titles every page and the footer lists its links', async () => {
  const { page, context } = await e2e.open();
  await visit(page, '/');
  await page.waitForFunction(() => document.title.endsWith(' - Pixel Forge'));
  expect(await page.locator('header .brand').textContent()).toContain('Pixel Forge');
  const forum = page.locator('footer a[href="https://forum.example.com/"]');
  expect(await forum.textContent()).toBe('Forum');
  expect(await forum.getAttribute('rel')).toBe('noopener noreferrer');
  await visit(page, '/no/such/page');
  await page.waitForFunction(() => document.title.endsWith(' - Pixel Forge'));
  await context.close();
}, 30_000);
