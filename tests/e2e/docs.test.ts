/**
 * Documentation section links (issue 29): headings carry ids, and an address with #id scrolls to its
 * heading when opened, after a link within the page and after an in-app link to another page; ids of
 * non-Latin headings are their own letters, unique per page.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { startE2E, visit, type E2E } from './support/app.ts';

let e2e: E2E;
let docsDir: string;

/** Paragraphs enough that a heading in the middle can come to the top of an 800 px viewport. */
const filler = Array.from({ length: 40 }, (_, index) => `Paragraph ${index + 1} of the filler text.`).join('\n\n');

beforeAll(async () => {
  docsDir = mkdtempSync(join(tmpdir(), 'cartridge-docs-'));
  cpSync(resolve(import.meta.dir, '../../docs/en'), join(docsDir, 'en'), { recursive: true });
  mkdirSync(join(docsDir, 'ja'));
  writeFileSync(
    join(docsDir, 'ja', 'guide.md'),
    `# ガイド\n\n[二つ目の手順へ](#手順-1)\n\n${filler}\n\n## 手順\n\n${filler}\n\n## 手順\n\n二つ目。\n\n${filler}\n\n## 🚀\n\n${filler}\n`,
  );
  // The docs library is chosen when the app is made: the folder is this file's alone.
  process.env.DOCS_DIR = docsDir;
  try {
    e2e = await startE2E();
  } finally {
    delete process.env.DOCS_DIR;
  }
}, 60_000);
afterAll(async () => {
  await e2e?.close();
  rmSync(docsDir, { recursive: true, force: true });
});

/** Waits until the element is scrolled to the top of the viewport (the page scrolled to bring it there). */
async function waitAtTop(page: Page, selector: string): Promise<void> {
  await page.waitForFunction(
    (css) => {
      const element = document.querySelector(css);
      if (!element || window.scrollY <= 0) return false;
      return Math.abs(element.getBoundingClientRect().top) <= 2;
    },
    selector,
    { timeout: 10_000 },
  );
}

test('opening /docs/en/scale-out#jobs shows the Jobs heading at the top; headings carry GitHub ids', async () => {
  const { page, context } = await e2e.open();
  await visit(page, '/docs/en/scale-out#jobs', 'page_docs');
  await waitAtTop(page, 'main article h2#jobs');
  expect(await page.locator('main article h2#jobs').textContent()).toBe('Jobs');
  const ids = await page.locator('main article :is(h1, h2, h3)').evaluateAll((headings) => headings.map((heading) => heading.id));
  expect(ids).toContain('what-each-process-keeps-in-memory');
  expect(ids).toContain('a-full-disk');
  expect(ids.every((id) => id.length > 0)).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  await context.close();
}, 30_000);

test('a section link within the page scrolls there and puts the fragment in the address', async () => {
  const { page, context } = await e2e.open();
  await visit(page, '/docs/en/scale-out', 'page_docs');
  await page.locator('main article h2#jobs').waitFor();
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  await page.locator('main article a[href="#jobs"]').first().click();
  await waitAtTop(page, 'main article h2#jobs');
  expect(new URL(page.url()).hash).toBe('#jobs');
  await context.close();
}, 30_000);

test('an in-app link to a section of another page scrolls to it once that page has loaded', async () => {
  const { page, context } = await e2e.open();
  await visit(page, '/docs/en/images', 'page_docs');
  const link = page.locator('main article a[href="/docs/en/projects#cover-and-screenshots"]').first();
  await link.waitFor();
  // The app navigates itself (no reload): a marker on the window survives.
  await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
  await link.click();
  await page.waitForURL((url) => url.pathname === '/docs/en/projects' && url.hash === '#cover-and-screenshots', { timeout: 10_000 });
  await waitAtTop(page, 'main article #cover-and-screenshots');
  expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
  await context.close();
}, 30_000);

test('non-Latin headings: the id is the heading itself, repeats are numbered, an encoded address finds it', async () => {
  const { page, context } = await e2e.open();
  await visit(page, `/docs/ja/guide#${encodeURIComponent('手順')}`, 'page_docs');
  await waitAtTop(page, 'main article [id="手順"]');
  const ids = await page.locator('main article :is(h1, h2)').evaluateAll((headings) => headings.map((heading) => heading.id));
  expect(ids).toEqual(['ガイド', '手順', '手順-1', 'section']);
  // The link to the second one, from the top of the page.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.locator('main article a', { hasText: '二つ目の手順へ' }).click();
  await waitAtTop(page, 'main article [id="手順-1"]');
  expect(decodeURIComponent(new URL(page.url()).hash)).toBe('#手順-1');
  await context.close();
}, 30_000);
