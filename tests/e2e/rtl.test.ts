import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { languageSelect, message, rtlLanguage, startE2E, visit, type E2E } from './support/app.ts';

/** Issue 4: a right-to-left language (Arabic, the 14th) mirrors the layout through CSS logical properties. */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

type Box = { x: number; width: number };

async function boxOf(page: Page, selector: string): Promise<Box> {
  const box = await page.locator(selector).first().boundingBox();
  if (!box) throw new Error(`${selector} has no box (not visible?)`);
  return { x: box.x, width: box.width };
}

async function layout(page: Page) {
  return {
    // The header's first item (the brand link) and its last group (language and theme switchers).
    first: await boxOf(page, 'header > :not(.skip_link)'),
    tools: await boxOf(page, 'header select:has(option[value="pt-BR"])'),
    // The heading's text itself (the h1 box spans the full width either way).
    heading: await page.locator('main h1').evaluate((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      const rect = range.getBoundingClientRect();
      return { x: rect.x, width: rect.width };
    }),
    direction: await page.evaluate(() => getComputedStyle(document.body).direction),
    html: await page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir })),
    // The layout width, without a vertical scrollbar if there is one.
    width: await page.evaluate(() => document.documentElement.clientWidth),
  };
}

const viewportWidth = 1280;

test('switching to Arabic sets <html dir="rtl"> and mirrors the header', async () => {
  const { page, context } = await e2e.open({ viewport: { width: viewportWidth, height: 800 } });
  await visit(page, '/', 'page_home');
  const ltr = await layout(page);
  expect(ltr.html).toEqual({ lang: 'en', dir: 'ltr' });
  expect(ltr.direction).toBe('ltr');
  // In LTR the brand starts at the left, the switchers sit at the right.
  expect(ltr.first.x).toBeLessThan(viewportWidth / 2);
  expect(ltr.tools.x).toBeGreaterThan(viewportWidth / 2);

  await languageSelect(page).selectOption(rtlLanguage);
  await page.locator('main h1', { hasText: message(rtlLanguage, 'home_heading') }).waitFor({ timeout: 5_000 });
  const rtl = await layout(page);
  expect(rtl.html).toEqual({ lang: rtlLanguage, dir: 'rtl' });
  expect(rtl.direction).toBe('rtl');
  // Mirrored: the brand moves to the right edge (same distance from it as from the left in LTR),
  // the switchers to the left, the heading starts at the right.
  expect(rtl.first.x).toBeGreaterThan(viewportWidth / 2);
  const rtlGapToRight = rtl.width - (rtl.first.x + rtl.first.width);
  // (within a scrollbar's width: Chromium may put the vertical scrollbar on the left in RTL)
  expect(Math.abs(rtlGapToRight - ltr.first.x)).toBeLessThanOrEqual(20);
  expect(rtl.tools.x + rtl.tools.width).toBeLessThan(viewportWidth / 2);
  expect(ltr.heading.x).toBeLessThan(ltr.width / 2);
  expect(rtl.heading.x + rtl.heading.width).toBeGreaterThan(rtl.width / 2);
  expect(Math.abs(rtl.width - (rtl.heading.x + rtl.heading.width) - ltr.heading.x)).toBeLessThanOrEqual(20);

  // Persisted, and still RTL after a reload (set before the app renders).
  await page.reload({ waitUntil: 'domcontentloaded' });
  await page.locator('main#content.page_home').waitFor();
  expect((await layout(page)).html).toEqual({ lang: rtlLanguage, dir: 'rtl' });
  expect(await page.evaluate(() => localStorage.getItem('lang'))).toBe(rtlLanguage);
  await context.close();
}, 30_000);

test('breadcrumbs follow the page direction', async () => {
  const { page, context } = await e2e.open({ storage: { lang: rtlLanguage } });
  await visit(page, '/no-such-page', 'page_not_found');
  const crumbs = page.locator('nav.breadcrumb li');
  expect(await crumbs.count()).toBe(2);
  const home = await crumbs.nth(0).boundingBox();
  const current = await crumbs.nth(1).boundingBox();
  expect(home && current).toBeTruthy();
  // RTL: the trail reads from right to left, so the first crumb (home) is to the right of the current page.
  expect(home!.x).toBeGreaterThan(current!.x);
  expect(await crumbs.nth(0).textContent()).toContain(message(rtlLanguage, 'nav_home'));
  await context.close();
}, 30_000);

test('an Arabic browser gets Arabic, right to left, from the first load', async () => {
  const { page, context } = await e2e.open({ locale: 'ar-EG' });
  await visit(page, '/', 'page_home');
  expect((await layout(page)).html).toEqual({ lang: rtlLanguage, dir: 'rtl' });
  expect(await page.locator('main h1').textContent()).toBe(message(rtlLanguage, 'home_heading'));
  await context.close();
}, 30_000);
