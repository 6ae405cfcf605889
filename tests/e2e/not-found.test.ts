import { afterAll, beforeAll, expect, test } from 'bun:test';
import { en, startE2E, visit, watchConsole, type E2E } from './support/app.ts';

/** Spec §2: anything the routes do not match shows the not-found page with its three causes. */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

const causes = [en('not_found_deleted'), en('not_found_no_access'), en('not_found_bad_link')];

for (const path of ['/no/such/page-xyz', '/%E0%A4%A', '/me/extra', '/docs', '/experiment/x/y', '/a//b']) {
  test(`not found: ${path}`, async () => {
    const { page, context } = await e2e.open();
    const problems = watchConsole(page);
    const response = await page.goto(path, { waitUntil: 'domcontentloaded' });
    expect(response?.status()).toBeLessThan(500);
    await visit(page, path, 'page_not_found');
    expect(await page.locator('main h1').textContent()).toBe(en('not_found_title'));
    expect(await page.title()).toBe(`${en('not_found_title')} - Cartridge`);
    const shown = await page.locator('main li').allTextContents();
    for (const cause of causes) expect(shown).toContain(cause);
    // The address stays as typed (no redirect), and the page was not a crash.
    expect(new URL(page.url()).pathname).toBe(path);
    expect(problems.filter((problem) => problem.startsWith('pageerror'))).toEqual([]);
    await context.close();
  }, 30_000);
}

test('the not-found page leads back home', async () => {
  const { page, context } = await e2e.open();
  await visit(page, '/gone-for-good', 'page_not_found');
  await page.locator('main').getByRole('link', { name: en('not_found_home'), exact: true }).click();
  await page.locator('main#content.page_home').waitFor();
  expect(new URL(page.url()).pathname).toBe('/');
  await context.close();
}, 30_000);
