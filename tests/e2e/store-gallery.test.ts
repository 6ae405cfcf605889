import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import type { TestUser } from '../support/accounts.ts';
import { registerUser } from '../support/accounts.ts';
import { photoLike } from '../support/images.ts';
import { listedProject, setStoreMedia, type ListedProject } from '../support/store-fixtures.ts';
import { en, message, rtlLanguage, startE2E, visit, watchConsole, type E2E } from './support/app.ts';
import { axeProblems } from './support/axe.ts';

/**
 * Issue 19 in Chromium: a developer sets a cover (picked) and screenshots (dropped) on the overview page
 * and reorders them by keyboard; a visitor's store page leads with the cover (eager, fetchpriority high,
 * a srcset, its size known), offers the download for the visitor's system (Windows and Linux user
 * agents) and shows the screenshots as a gallery whose dialog works by keyboard (arrows, Escape, focus
 * back); the store index lists the project and finds it by search. axe-core clean in both themes on the
 * store page, the store index and the media section; screenshots of the store page and store index at
 * 1280 and 375 px in light, dark and Arabic under tests/artifacts/store/ (ignored by git) for review.
 */
let e2e: E2E;
let owner: TestUser;
let game: ListedProject;
const title = 'Star Miner';
const artifacts = join(import.meta.dir, '..', 'artifacts', 'store');
const windowsAgent = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
const linuxAgent = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  e2e = await startE2E();
  owner = await registerUser(e2e.server, 'ada_dev');
  game = await listedProject(e2e.server, owner, title, {
    platforms: ['linux', 'windows'],
    description: '# Mine the stars\n\nA **cosy** mining game: dig, trade and fly between twelve asteroids.\n\n- Dig\n- Trade\n- Fly',
  });
  // Neighbours in the index: one with a cover, one without.
  const harbour = await listedProject(e2e.server, owner, 'Quiet Harbour', { platforms: ['web'] });
  await setStoreMedia(e2e.server, owner, harbour.project.id, { cover: { width: 1280, height: 720 }, seed: 9 });
  await listedProject(e2e.server, owner, 'Ärger Bay', { platforms: ['macos'] });
}, 120_000);
afterAll(async () => {
  await e2e?.close();
});

const storePath = () => `/store/${encodeURIComponent(game.project.id)}`;
const shotCount = 4;

async function png(width: number, height: number, seed: number): Promise<Buffer> {
  return Buffer.from(await photoLike(width, height, { seed }));
}

/** Drops files on an element as a browser does: dragenter, dragover and drop with a DataTransfer holding them. */
async function dropFiles(target: Locator, files: { name: string; base64: string }[]): Promise<void> {
  await target.evaluate((element, given) => {
    const transfer = new DataTransfer();
    for (const file of given) transfer.items.add(new File([Uint8Array.from(atob(file.base64), (char) => char.charCodeAt(0))], file.name, { type: 'image/png' }));
    for (const type of ['dragenter', 'dragover', 'drop']) element.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, files);
}

/** The overview's screenshot tiles, their image ids in order. */
async function tileOrder(page: Page): Promise<string[]> {
  return page.locator('section.project_media .project_media_tile').evaluateAll((tiles) => tiles.map((tile) => tile.getAttribute('data-image-id') ?? ''));
}

async function mediaOf() {
  return e2e.server.trpc(owner.token).projects.media.get.query({ project: game.project.id });
}

/** The page's data has loaded (no spinner), fonts and images at rest. */
async function settle(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelector('main .state_loading, .page_processing') === null, undefined, { timeout: 15_000 });
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(200);
}

test('the overview: a picked cover and dropped screenshots go up and are saved; reordered by keyboard', async () => {
  const { page, context } = await e2e.openSignedIn({ user: owner });
  const problems = watchConsole(page);
  await visit(page, `/projects/${game.project.id}`, 'page_project_overview');
  const section = page.locator('section.project_media');
  await section.locator('.project_media_editor').waitFor({ timeout: 10_000 });

  await section.locator('[data-testid="project-media-cover-input"]').setInputFiles({ name: 'key art.png', mimeType: 'image/png', buffer: await png(2400, 1000, 1) });
  await section.locator('.project_media_cover img.project_media_cover_image').waitFor({ timeout: 30_000 });

  const shots = await Promise.all(Array.from({ length: shotCount }, async (_, i) => ({ name: `level ${i + 1}.png`, base64: (await png(1280, 720, 101 + i)).toString('base64') })));
  await dropFiles(section.locator('.project_media_screenshots'), shots);
  await page.waitForFunction((count) => document.querySelectorAll('.project_media_screenshots .project_media_tile[data-image-id]').length === count && !document.querySelector('.project_media_uploading'), shotCount, { timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('.project_media_status')?.textContent?.includes('Saved.'), undefined, { timeout: 10_000 });
  const ids = (await tileOrder(page)) as [string, string, string, string];
  let media = await mediaOf();
  expect(media.cover?.width).toBe(2400);
  expect(media.screenshots.map((image) => image.id)).toEqual(ids);
  // Converted in the browser: each went up as a JPEG of its own pixels.
  expect(media.screenshots.map((image) => [image.width, image.height])).toEqual(Array.from({ length: shotCount }, () => [1280, 720]));

  // Keyboard only: focus the first tile's 'Move later' and press Enter, then Space; the focus stays with it.
  const first = section.getByRole('group', { name: en('project_media_screenshot_label', { position: '1', count: String(shotCount) }) });
  await first.getByRole('button', { name: en('project_media_move_later'), exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Space');
  const order = await tileOrder(page);
  expect(order).toEqual([ids[1], ids[2], ids[0], ids[3]]);
  expect(await page.evaluate(() => document.activeElement?.closest('.project_media_tile')?.getAttribute('data-image-id'))).toBe(ids[0]!);
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-move'))).toBe('later');
  await page.waitForFunction(() => document.querySelector('.project_media_status')?.textContent?.includes('Saved.'), undefined, { timeout: 10_000 });
  for (let i = 0; i < 50 && (await mediaOf()).screenshots[2]?.id !== ids[0]; i++) await page.waitForTimeout(100);
  media = await mediaOf();
  expect(media.screenshots.map((image) => image.id)).toEqual(order);
  // Back in the first order for the store page's tests.
  await page.keyboard.press('Shift+Tab');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-move'))).toBe('earlier');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await page.waitForFunction(
    (expected) => JSON.stringify([...document.querySelectorAll('.project_media_tile')].map((tile) => tile.getAttribute('data-image-id'))) === expected,
    JSON.stringify(ids),
  );
  for (let i = 0; i < 50 && (await mediaOf()).screenshots[0]?.id !== ids[0]; i++) await page.waitForTimeout(100);
  expect((await mediaOf()).screenshots.map((image) => image.id)).toEqual(ids);
  expect(problems).toEqual([]);
  await context.close();
}, 120_000);

/** The store page as a visitor with this user agent (and its viewport). */
async function openStore(options: { userAgent?: string; width?: number; theme?: 'light' | 'dark'; lang?: string } = {}): Promise<{ page: Page; context: BrowserContext }> {
  const width = options.width ?? 1280;
  const theme = options.theme ?? 'light';
  const opened = await e2e.open({
    userAgent: options.userAgent,
    viewport: { width, height: width === 375 ? 812 : 800 },
    colorScheme: theme,
    storage: { theme, ...(options.lang ? { lang: options.lang } : {}) },
  });
  await visit(opened.page, storePath(), 'page_store_project');
  await opened.page.locator('.store_cover img').waitFor({ timeout: 15_000 });
  return opened;
}

test('the store page leads with the cover: eager, fetchpriority high, a srcset, its size; every image sized', async () => {
  const media = await mediaOf();
  expect(media.screenshots).toHaveLength(shotCount);
  const { page, context } = await openStore({ userAgent: linuxAgent });
  const cover = page.locator('.store_cover img');
  expect(await cover.getAttribute('alt')).toBe(en('store_cover_alt', { title }));
  expect(await cover.getAttribute('loading')).toBe('eager');
  expect(await cover.getAttribute('fetchpriority')).toBe('high');
  expect([await cover.getAttribute('width'), await cover.getAttribute('height')]).toEqual(['2400', '1000']);
  const id = media.cover!.id;
  expect(await cover.getAttribute('srcset')).toBe([320, 640, 960, 1280, 1920, 2400].map((width) => `/content-images/${id}/${width} ${width}w`).join(', '));
  // At 1280 px on a 1x screen the main column is 45rem (720 px) wide: the 960 px size, not the 2400 px one.
  await page.waitForFunction((element) => (element as HTMLImageElement).complete && (element as HTMLImageElement).naturalWidth > 0, await cover.elementHandle());
  expect(await cover.evaluate((element) => (element as HTMLImageElement).currentSrc)).toMatch(new RegExp(`/content-images/${id}/960$`));
  // The order of a game's page: title and developer; the cover with the screenshots right under it, the
  // pitch and the card beside them; then the description, the information, and every download last.
  const top = (selector: string) => page.evaluate((given) => {
    const element = document.querySelector(given);
    return element ? element.getBoundingClientRect().top + window.scrollY : -1;
  }, selector);
  const [titleTop, coverTop, gallery, pitch, primary, description, info, downloads] = await Promise.all(
    ['.store_header h1', '.store_cover', '.store_gallery', '.store_pitch', '.store_primary', '.store_description', '.store_info', '.store_downloads'].map(top),
  );
  for (const found of [titleTop, coverTop, gallery, pitch, primary, description, info, downloads]) expect(found!).toBeGreaterThanOrEqual(0);
  expect(titleTop!).toBeLessThan(coverTop!);
  expect(coverTop!).toBeLessThan(gallery!);
  expect(gallery!).toBeLessThan(description!);
  expect(pitch!).toBeLessThan(primary!);
  expect(primary!).toBeLessThan(gallery!);
  expect(Math.max(description!, info!)).toBeLessThan(downloads!);
  expect(await page.locator('[data-testid="store-owner"]').textContent()).toBe('ada_dev');
  // Every image has its size before it loads; only the cover is eager.
  const images = await page.locator('main img').evaluateAll((list) => list.map((img) => ({ width: img.getAttribute('width'), height: img.getAttribute('height'), loading: img.getAttribute('loading'), cls: img.className })));
  expect(images.length).toBe(1 + shotCount);
  for (const image of images) expect(Number(image.width) > 0 && Number(image.height) > 0).toBe(true);
  expect(images.filter((image) => image.loading !== 'lazy').map((image) => image.cls)).toEqual(['store_cover_image']);
  const thumbs = page.locator('.store_gallery_thumb img');
  expect(await thumbs.count()).toBe(shotCount);
  expect(await thumbs.first().getAttribute('srcset')).toMatch(/ 320w, .* 1280w$/);
  expect(await thumbs.first().getAttribute('alt')).toBe(en('store_gallery_alt', { title, position: '1', count: String(shotCount) }));
  await context.close();
}, 60_000);

test('the primary action is the download for the visitor’s system: Windows, Linux; it downloads the ZIP', async () => {
  for (const [agent, platform, name] of [
    [windowsAgent, 'windows', 'Windows'],
    [linuxAgent, 'linux', 'Linux'],
  ] as const) {
    const { page, context } = await openStore({ userAgent: agent });
    const primary = page.locator('.store_primary');
    expect(await primary.getAttribute('data-action')).toBe('download');
    expect(await primary.getAttribute('data-platform')).toBe(platform);
    const button = primary.getByRole('button', { name: en('store_primary_download', { platform: name }), exact: true });
    await button.waitFor();
    expect(await primary.locator('.store_primary_details').textContent()).toContain(`${name} build`);
    const download = page.waitForEvent('download', { timeout: 15_000 });
    await button.click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.zip$/);
    expect(new URL(file.url()).pathname).toContain(game.packages[platform]!);
    await file.cancel();
    // The other packages are under "All downloads", each with its own downloads.
    expect(await page.locator('.store_downloads .store_package').count()).toBe(2);
    await context.close();
  }
  // A macOS visitor: no build for it, said so; every package below.
  const { page, context } = await openStore({ userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15' });
  expect(await page.locator('.store_primary').getAttribute('data-action')).toBe('none');
  expect(await page.locator('.store_primary_none').textContent()).toBe(en('store_primary_none_platform', { platform: 'macOS' }));
  await page.locator('.store_primary_all').click();
  await page.waitForFunction(() => location.hash === '#store-downloads');
  // The link opens "All downloads": every package is there.
  expect(await page.locator('details.store_downloads').evaluate((details) => (details as HTMLDetailsElement).open)).toBe(true);
  await page.locator('.store_package').first().waitFor();
  await context.close();
}, 90_000);

test('the gallery opens large by keyboard: arrows, Escape, focus back on the thumbnail last shown', async () => {
  const { page, context } = await openStore({ userAgent: linuxAgent });
  const problems = watchConsole(page);
  const thumbs = page.locator('.store_gallery_thumb');
  await thumbs.first().focus();
  await page.keyboard.press('Enter');
  const dialog = page.locator('dialog[open].store_lightbox');
  await dialog.waitFor();
  const heading = () => dialog.locator('.dialog_title').textContent();
  expect(await heading()).toBe(en('store_gallery_position', { position: '1', count: String(shotCount) }));
  expect(await dialog.getAttribute('aria-modal')).toBe('true');
  // Focus starts on Close inside the dialog.
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(en('store_gallery_close'));
  const large = dialog.locator('img.store_lightbox_image');
  expect(Number(await large.getAttribute('width'))).toBe(1280);
  await page.waitForFunction((element) => (element as HTMLImageElement).complete && (element as HTMLImageElement).naturalWidth > 0, await large.elementHandle());
  const firstSrc = await large.evaluate((element) => (element as HTMLImageElement).currentSrc);

  await page.keyboard.press('ArrowRight');
  expect(await heading()).toBe(en('store_gallery_position', { position: '2', count: String(shotCount) }));
  await page.waitForFunction((element) => (element as HTMLImageElement).complete, await large.elementHandle());
  expect(await large.evaluate((element) => (element as HTMLImageElement).currentSrc)).not.toBe(firstSrc);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowLeft');
  expect(await heading()).toBe(en('store_gallery_position', { position: '2', count: String(shotCount) }));
  // Previous from the first wraps to the last; the buttons do the same by Tab and Enter.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  expect(await heading()).toBe(en('store_gallery_position', { position: String(shotCount), count: String(shotCount) }));
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toContain(en('store_gallery_next'));
  await page.keyboard.press('Enter');
  expect(await heading()).toBe(en('store_gallery_position', { position: '1', count: String(shotCount) }));
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  // Tab stays inside the dialog.
  for (let i = 0; i < 4; i++) await page.keyboard.press('Tab');
  expect(await page.evaluate(() => Boolean(document.activeElement?.closest('dialog[open]')))).toBe(true);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  // Focus is back on the thumbnail of the screenshot last shown (the third).
  await page.waitForFunction(() => document.activeElement?.classList.contains('store_gallery_thumb'));
  expect(await page.evaluate(() => [...document.querySelectorAll('.store_gallery_thumb')].indexOf(document.activeElement!))).toBe(2);
  expect(problems).toEqual([]);
  await context.close();

  // Right to left: the next screenshot is to the left.
  const rtl = await openStore({ lang: rtlLanguage, userAgent: linuxAgent });
  await rtl.page.locator('.store_gallery_thumb').first().click();
  const rtlDialog = rtl.page.locator('dialog[open].store_lightbox');
  await rtlDialog.waitFor();
  await rtl.page.keyboard.press('ArrowLeft');
  expect(await rtlDialog.locator('.dialog_title').textContent()).toBe(message(rtlLanguage, 'store_gallery_position').replace('{position}', '2').replace('{count}', String(shotCount)));
  await rtl.context.close();
}, 60_000);

test('the large view shows a small screenshot at its own size, never scaled up; a large one fits the dialog (issue 29)', async () => {
  const small = await listedProject(e2e.server, owner, 'Tiny Shots', { platforms: ['linux'] });
  await setStoreMedia(e2e.server, owner, small.project.id, { screenshots: 1, screenshotSize: { width: 400, height: 225 }, seed: 31 });
  const large = await listedProject(e2e.server, owner, 'Huge Shots', { platforms: ['linux'] });
  await setStoreMedia(e2e.server, owner, large.project.id, { screenshots: 1, screenshotSize: { width: 3000, height: 1500 }, seed: 32 });
  try {
    await measureLightbox(small.project.id, large.project.id);
  } finally {
    // Out of the store again: the store index test lists the file's own three projects.
    for (const project of [small.project, large.project]) await e2e.server.fetch(`/api/projects/${project.id}`, { method: 'PATCH', token: owner.token, json: { isPublic: false } });
  }
}, 90_000);

async function measureLightbox(smallId: string, largeId: string): Promise<void> {
  for (const width of [1280, 375]) {
    const { page, context } = await e2e.open({ viewport: { width, height: width === 375 ? 812 : 800 } });
    const shown = async (projectId: string) => {
      await visit(page, `/store/${encodeURIComponent(projectId)}`, 'page_store_project');
      await page.locator('.store_gallery_thumb').first().click();
      const image = page.locator('dialog[open].store_lightbox img.store_lightbox_image');
      await image.waitFor();
      await page.waitForFunction((element) => (element as HTMLImageElement).complete && (element as HTMLImageElement).naturalWidth > 0, await image.elementHandle());
      const measured = await image.evaluate((element) => {
        const box = element.getBoundingClientRect();
        const figure = element.closest('figure')!.getBoundingClientRect();
        return { width: Math.round(box.width), height: Math.round(box.height), room: Math.round(figure.width), viewport: window.innerHeight };
      });
      await page.keyboard.press('Escape');
      return measured;
    };
    const tiny = await shown(smallId);
    // 400 × 225 CSS pixels as made (scale 100), or smaller when the dialog is narrower: never more.
    expect({ width, tiny: [tiny.width, tiny.height] }).toEqual({ width, tiny: tiny.room >= 400 ? [400, 225] : [tiny.room, Math.round((tiny.room * 225) / 400)] });
    const huge = await shown(largeId);
    // A large one fills the room it has (width or height), its shape kept.
    expect({ width, fits: huge.width <= huge.room && huge.height <= huge.viewport }).toEqual({ width, fits: true });
    expect({ width, fills: huge.width === huge.room || huge.height >= huge.viewport - 9 * 16 - 2 }).toEqual({ width, fills: true });
    expect(Math.abs(huge.width / huge.height - 2)).toBeLessThan(0.02);
    await context.close();
  }
}

test('the store index lists the project with its cover and finds it by search (in the address)', async () => {
  const { page, context } = await e2e.open();
  await visit(page, '/store', 'page_store_index');
  const card = page.locator(`.store_card[data-project-id="${game.project.id}"]`);
  await card.waitFor({ timeout: 10_000 });
  expect(await page.locator('.store_card_title').allTextContents()).toEqual(['Ärger Bay', 'Quiet Harbour', title]);
  expect(await card.locator('.store_card_cover img').getAttribute('srcset')).toContain(' 320w');
  expect(await card.locator('[data-platform]').evaluateAll((items) => items.map((item) => item.getAttribute('data-platform')))).toEqual(['windows', 'linux']);
  await page.locator('.store_placeholder').first().waitFor();

  await page.getByRole('searchbox', { name: en('store_index_search_label') }).fill('miner');
  await page.waitForFunction(() => location.search === '?q=miner', undefined, { timeout: 5_000 });
  await page.waitForFunction(() => document.querySelectorAll('.store_card').length === 1 && !document.querySelector('.store_grid[data-searching]'), undefined, { timeout: 10_000 });
  expect(await page.locator('.store_card_title').allTextContents()).toEqual([title]);
  // The address is the search: a reload keeps it.
  await page.reload();
  await page.locator('.store_card').first().waitFor({ timeout: 10_000 });
  expect(await page.getByRole('searchbox', { name: en('store_index_search_label') }).inputValue()).toBe('miner');
  expect(await page.locator('.store_card_title').allTextContents()).toEqual([title]);
  // The card is one link to the store page.
  await card.locator('.store_card_link').click();
  await page.locator('main#content.page_store_project').waitFor();
  expect(new URL(page.url()).pathname).toBe(storePath());
  await context.close();
}, 60_000);

for (const theme of ['light', 'dark'] as const) {
  test(`axe, ${theme} theme: store page, its gallery dialog, store index, the media section`, async () => {
    const { page, context } = await openStore({ theme, userAgent: windowsAgent });
    await settle(page);
    const { problems, check } = axeProblems(theme);
    await check(page, 'store page');
    await page.locator('.store_gallery_thumb').first().click();
    await page.locator('dialog[open].store_lightbox img').waitFor();
    await check(page, 'gallery dialog');
    await page.keyboard.press('Escape');
    await visit(page, '/store', 'page_store_index');
    await page.locator('.store_card').first().waitFor({ timeout: 10_000 });
    await settle(page);
    await check(page, 'store index');
    await context.close();

    const signedIn = await e2e.openSignedIn({ user: owner, colorScheme: theme, storage: { theme } });
    await visit(signedIn.page, `/projects/${game.project.id}`, 'page_project_overview');
    await signedIn.page.locator('.project_media_tile img').first().waitFor({ timeout: 10_000 });
    await settle(signedIn.page);
    await check(signedIn.page, 'media section');
    await signedIn.context.close();
    expect(problems).toEqual([]);
  }, 60_000);
}

test('screenshots for review: store page and store index at 1280 and 375 px, light, dark and Arabic; nothing scrolls sideways', async () => {
  const problems: string[] = [];
  for (const width of [1280, 375] as const) {
    for (const [variant, theme, lang] of [
      ['light', 'light', 'en'],
      ['dark', 'dark', 'en'],
      ['ar', 'light', rtlLanguage],
    ] as const) {
      const { page, context } = await e2e.open({ viewport: { width, height: width === 375 ? 812 : 800 }, colorScheme: theme, storage: { theme, lang }, userAgent: windowsAgent });
      for (const [name, path, pageClass] of [
        ['store-page', storePath(), 'page_store_project'],
        ['store-index', '/store', 'page_store_index'],
      ] as const) {
        await visit(page, path, pageClass);
        await settle(page);
        // Lazy images scrolled into view first, so the full-page picture shows them.
        await page.evaluate(async () => {
          for (const img of document.querySelectorAll('main img')) img.scrollIntoView();
          window.scrollTo(0, 0);
        });
        await page.waitForFunction(() => [...document.querySelectorAll('main img')].every((img) => (img as HTMLImageElement).complete), undefined, { timeout: 15_000 });
        expect(await page.evaluate(() => document.documentElement.dir)).toBe(lang === 'ar' ? 'rtl' : 'ltr');
        await page.screenshot({ path: join(artifacts, `${name}-${width}-${variant}.png`), fullPage: true });
        const sideways = await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);
        if (sideways > 0) problems.push(`${name} at ${width} px (${variant}) scrolls sideways by ${sideways} px`);
      }
      await context.close();
    }
  }
  expect(problems).toEqual([]);
}, 120_000);
