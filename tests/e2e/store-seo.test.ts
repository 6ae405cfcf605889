import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { listedProject, setStoreMedia, type ListedProject } from '../support/store-fixtures.ts';
import { en, message, startE2E, visit, type E2E } from './support/app.ts';
import { seoAudits } from './support/seo-audits.ts';

/**
 * Issue 21 in Chromium: store pages as a link-preview bot reads them (no script), the SEO audits
 * Lighthouse scores, the head kept in step while the app navigates, the CSP untouched by the JSON-LD,
 * and `?lang=` pages.
 */
let e2e: E2E;
let owner: TestUser;
let game: ListedProject;
let other: ListedProject;
let secret: TestProject;

beforeAll(async () => {
  e2e = await startE2E();
  owner = await registerUser(e2e.server, 'ada_dev');
  game = await listedProject(e2e.server, owner, 'Star Miner', {
    platforms: ['linux', 'web'],
    description: '# Mine the stars\n\nA **cosy** mining game: dig, trade and fly between twelve asteroids.\n\nMore later.',
  });
  await setStoreMedia(e2e.server, owner, game.project.id, { cover: { width: 1920, height: 1080 } });
  other = await listedProject(e2e.server, owner, 'Moss & Iron', { platforms: ['web'], description: 'A quiet "garden" <builder>.' });
  secret = await createProject(e2e.server, owner, 'Secret Lab');
}, 120_000);
afterAll(async () => {
  await e2e?.close();
});

const storePath = (id: string) => `/store/${encodeURIComponent(id)}`;

type Head = { title: string; description: string | null; canonical: string | null; ogTitle: string | null; ogImage: string | null; jsonLd: string[]; counts: number[] };

function readHead(page: Page): Promise<Head> {
  return page.evaluate(() => {
    const content = (selector: string) => document.querySelector(selector)?.getAttribute('content') ?? null;
    return {
      title: document.title,
      description: content('meta[name="description"]'),
      canonical: document.querySelector('link[rel="canonical"]')?.getAttribute('href') ?? null,
      ogTitle: content('meta[property="og:title"]'),
      ogImage: content('meta[property="og:image"]'),
      jsonLd: [...document.querySelectorAll('script[type="application/ld+json"]')].map((script) => (JSON.parse(script.textContent ?? '{}') as { name?: string }).name ?? ''),
      // Never two of one: description, canonical, og:title.
      counts: ['meta[name="description"]', 'link[rel="canonical"]', 'meta[property="og:title"]'].map((selector) => document.querySelectorAll(selector).length),
    };
  });
}

test('a link-preview bot without script sees the game’s title, description and a cover that loads', async () => {
  const { context, page } = await e2e.open({ javaScriptEnabled: false, userAgent: 'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)' });
  const response = await page.goto(storePath(game.project.id));
  expect(response?.status()).toBe(200);
  // The app never ran: its root is empty, yet the head says everything a preview needs.
  expect(await page.locator('#root').innerHTML()).toBe('');
  const head = await readHead(page);
  expect(head.title).toBe('Star Miner - Cartridge');
  expect(head.description).toBe('A cosy mining game: dig, trade and fly between twelve asteroids.');
  expect(head.ogTitle).toBe('Star Miner');
  expect(head.jsonLd).toEqual(['Star Miner']);
  const image = await page.goto(head.ogImage!);
  expect(image?.status()).toBe(200);
  expect(image?.headers()['content-type']).toMatch(/^image\//);
  await context.close();
});

test('the SEO audits Lighthouse scores pass on the store page, the store index, a play page and home', async () => {
  const { context, page } = await e2e.open();
  const pages = [
    { path: storePath(game.project.id), ready: 'main.page_store_project h1' },
    { path: '/store', ready: 'main.page_store_index .store_card_link' },
    { path: `/store/${game.project.id}/${game.branch}/${game.packages.web}/play`, ready: 'main.page_package_play .play_header' },
    { path: '/', ready: 'main.page_home' },
  ];
  for (const { path, ready } of pages) {
    const response = await page.goto(path, { waitUntil: 'load' });
    await page.locator(ready).first().waitFor({ timeout: 15_000 });
    const audits = await seoAudits(page, response);
    expect([path, audits.filter((audit) => !audit.passed)]).toEqual([path, []]);
    expect(audits.map((audit) => audit.id)).toEqual(['document-title', 'meta-description', 'http-status-code', 'is-crawlable', 'link-text', 'crawlable-anchors', 'robots-txt', 'image-alt', 'hreflang', 'canonical']);
  }
  await context.close();
});

test('while a store or play page loads its data, the head the server wrote stays: a crawler running script never catches it bare', async () => {
  const { context, page } = await e2e.open();
  // Hold the store's data until the head has been read on the loading screen.
  let release = () => {};
  let held = Promise.resolve();
  await page.route(/\/trpc\/[^?]*store\.project/, async (route) => {
    await held;
    await route.continue();
  });
  for (const { path, screen, loaded } of [
    { path: storePath(game.project.id), screen: 'main.page_store_project', loaded: 'main.page_store_project h1' },
    { path: `/store/${game.project.id}/${game.branch}/${game.packages.web}/play`, screen: 'main.page_package_play', loaded: 'main.page_package_play .play_header' },
  ]) {
    held = new Promise<void>((resolve) => (release = resolve));
    await page.goto(path, { waitUntil: 'domcontentloaded' });
    // The screen's own loading state (not the lazy chunk's fallback), and its effects run.
    await page.locator(`${screen} .state_loading`).waitFor();
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 100))));
    const loading = await readHead(page);
    // The server's own title for this page, not the loading screen's generic one.
    expect(loading.title).not.toBe(`${en('store_title')} - Cartridge`);
    expect(loading.description).toBe('A cosy mining game: dig, trade and fly between twelve asteroids.');
    expect(loading.canonical).toBe(`${e2e.baseURL}${path}`);
    expect(loading.counts).toEqual([1, 1, 1]);
    release();
    await page.locator(loaded).waitFor();
    expect(await readHead(page)).toEqual(loading);
  }
  await context.close();
});

test('navigating inside the app keeps title, description, canonical, previews and JSON-LD in step', async () => {
  const { context, page } = await e2e.open();
  const origin = e2e.baseURL;
  await visit(page, storePath(game.project.id), 'page_store_project');
  await page.locator('main h1', { hasText: 'Star Miner' }).waitFor();
  let head = await readHead(page);
  expect(head).toMatchObject({ title: 'Star Miner - Cartridge', canonical: `${origin}${storePath(game.project.id)}`, jsonLd: ['Star Miner'], counts: [1, 1, 1] });

  // To the store index (breadcrumb): its own head; the game's picture and data are gone.
  await page.locator('nav.breadcrumb a', { hasText: en('store_title') }).click();
  await page.locator('main.page_store_index .store_card_link').first().waitFor();
  await page.waitForFunction(() => document.title.startsWith('Store'));
  head = await readHead(page);
  expect(head).toEqual({
    title: 'Store - Cartridge',
    description: en('store_index_intro', { appName: 'Cartridge' }),
    canonical: `${origin}/store`,
    ogTitle: 'Store',
    ogImage: null,
    jsonLd: [],
    counts: [1, 1, 1],
  });

  // To another game (its card): its title, description and data; no picture, so no og:image.
  await page.locator('.store_card_link', { hasText: 'Moss & Iron' }).click();
  await page.locator('main h1', { hasText: 'Moss & Iron' }).waitFor();
  await page.waitForFunction(() => document.title.startsWith('Moss'));
  head = await readHead(page);
  expect(head).toEqual({
    title: 'Moss & Iron - Cartridge',
    description: 'A quiet "garden" .',
    canonical: `${origin}${storePath(other.project.id)}`,
    ogTitle: 'Moss & Iron',
    ogImage: null,
    jsonLd: ['Moss & Iron'],
    counts: [1, 1, 1],
  });

  // Home (breadcrumb), then a screen without meta of its own (sign-in): nothing stale stays.
  await page.locator('nav.breadcrumb a', { hasText: en('nav_home') }).click();
  await page.locator('main.page_home').waitFor();
  await page.waitForFunction(() => document.title.startsWith('Home'));
  head = await readHead(page);
  expect(head).toMatchObject({ canonical: `${origin}/`, ogImage: null, jsonLd: [], counts: [1, 1, 1] });
  expect(head.description).toBe(en('home_description'));
  await page.locator('main.page_home a[href="/login"]').first().click();
  await page.locator('main.page_sign_in').waitFor();
  await page.waitForFunction(() => !document.title.startsWith('Home'));
  head = await readHead(page);
  expect(head).toEqual({ title: `${en('auth_sign_in_title')} - Cartridge`, description: null, canonical: null, ogTitle: null, ogImage: null, jsonLd: [], counts: [0, 0, 0] });
  await context.close();
});

test('the JSON-LD and the head changes break no CSP rule; a private project shows the not-found screen with the generic head', async () => {
  const { context, page } = await e2e.open();
  await context.addInitScript(() => {
    (window as unknown as { __violations: string[] }).__violations = [];
    document.addEventListener('securitypolicyviolation', (event) => (window as unknown as { __violations: string[] }).__violations.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  const errors: string[] = [];
  page.on('console', (entry) => {
    if (entry.type() === 'error' && /Content Security Policy/i.test(entry.text())) errors.push(entry.text());
  });
  await visit(page, storePath(game.project.id), 'page_store_project');
  await page.locator('main h1', { hasText: 'Star Miner' }).waitFor();
  // Client-side navigation writes a new JSON-LD element itself.
  await page.locator('nav.breadcrumb a', { hasText: en('store_title') }).click();
  await page.locator('.store_card_link', { hasText: 'Moss & Iron' }).click();
  await page.locator('main h1', { hasText: 'Moss & Iron' }).waitFor();
  await page.waitForFunction(() => document.querySelector('script[type="application/ld+json"]')?.textContent?.includes('Moss'));
  expect(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)).toEqual([]);
  expect(errors).toEqual([]);

  const response = await page.goto(storePath(secret.id));
  await page.locator('main#content').first().waitFor();
  const html = await response!.text();
  expect(html).not.toContain('Secret Lab');
  expect(await page.title()).not.toContain('Secret Lab');
  expect((await readHead(page)).canonical).toBeNull();
  await context.close();
});

test('?lang= serves and shows the page in that language without storing it; choosing another follows in the address', async () => {
  const { context, page } = await e2e.open();
  const path = storePath(game.project.id);
  const response = await page.goto(`${path}?lang=fr`, { waitUntil: 'domcontentloaded' });
  expect(await response!.text()).toContain('<html lang="fr" dir="ltr">');
  await page.locator('main.page_store_project h1').waitFor();
  expect(await page.locator('nav.breadcrumb li').nth(1).textContent()).toBe(message('fr', 'store_title'));
  expect(await page.evaluate(() => [document.documentElement.lang, localStorage.getItem('lang')])).toEqual(['fr', null]);
  expect((await readHead(page)).canonical).toBe(`${e2e.baseURL}${path}?lang=fr`);

  await page.locator('header select:has(option[value="pt-BR"])').selectOption('ar');
  await page.waitForFunction(() => document.documentElement.dir === 'rtl');
  expect(new URL(page.url()).searchParams.get('lang')).toBe('ar');
  await page.locator('main.page_store_project h1').waitFor();
  await page.waitForFunction(() => document.querySelector('link[rel="canonical"]')?.getAttribute('href')?.endsWith('?lang=ar'));
  expect(await page.evaluate(() => localStorage.getItem('lang'))).toBe('ar');
  await context.close();
});
