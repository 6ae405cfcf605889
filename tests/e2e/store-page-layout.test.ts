import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page, Route } from 'playwright-core';
import { PLAY_ALLOW, PLAY_SANDBOX } from '../../src/client/components/play-frame.tsx';
import { newId } from '../../src/server/db/ids.ts';
import { credentials } from '../../src/server/db/schema/index.ts';
import { LOCAL_HELPER_PORT } from '../../src/shared/schemas/local-helper.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { uploadPackage } from '../support/packages.ts';
import { createProject, grantPrivilege, type TestProject } from '../support/projects.ts';
import { listedProject, setStoreMedia, type ListedProject } from '../support/store-fixtures.ts';
import { startLocalHelper, type LocalHelper } from '../client/local-app-support.ts';
import { en, message, openDialog, rtlLanguage, startE2E, visit, watchConsole, type E2E } from './support/app.ts';
import { axeProblems } from './support/axe.ts';
import { drawingGameFiles, listenToGame, waitForGameMessages } from './support/drawing-game.ts';

/**
 * Issue 29, the store page players expect, in Chromium: the first screen at 1280×800 and 375×812 (light,
 * dark, Arabic) holds the cover or game (at most half of it), the pitch, the card and the first
 * screenshot; a web build runs in the page on click (the play origin, the play page's sandbox,
 * fullscreen); the card offers every way to play least effort first; torrents and package lists wait
 * behind "All downloads"; a single public branch is not named; the information table; visitors without
 * the local app get one "Install with the local app" offer and no disabled Install rows, while a
 * player whose app answers gets Install in the card and in every row. Screenshots for review go to
 * tests/artifacts/store/ (ignored by git).
 */
let e2e: E2E;
let owner: TestUser;
let game: TestProject;
let gameBranch: string;
let packages: Record<'web' | 'windows' | 'linux', string>;
let plain: ListedProject;
let helper: LocalHelper | undefined;
const title = 'Rocket Garden';
const branchTitle = 'release-line';
const pitch = 'Grow rockets from seeds and fly them to the moons of a tiny, friendly planet.';
const artifacts = join(import.meta.dir, '..', 'artifacts', 'store');
const agents = {
  windows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  linux: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  iphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
};

async function call<T = { id: string }>(method: string, path: string, json?: unknown): Promise<T> {
  const response = await e2e.server.fetch(path, { method, token: owner.token, json });
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  e2e = await startE2E();
  owner = await registerUser(e2e.server, 'ada_dev');
  await grantPrivilege(e2e.server, owner, 'store_publish');
  await e2e.server.deps.db.insert(credentials).values([
    { id: newId(), userId: owner.id, provider: 'github', name: 'adadev', title: 'Ada on GitHub', profileUrl: 'https://github.com/adadev', isPublic: true },
  ]);
  game = await createProject(e2e.server, owner, title);
  const base = `/api/projects/${game.id}`;
  await call('PATCH', base, { isPublic: true });
  await call('PUT', `${base}/description`, { markdown: `# ${title}\n\n${pitch}\n\n## Features\n\n- Seeds\n- Rockets`, lang: 'en', images: [] });
  const web = await uploadPackage(e2e.server, owner, game.id, drawingGameFiles('Rocket game'), { tags: ['os:web'], entrypoint: ['index.html'], title: 'Browser build' });
  const windows = await uploadPackage(e2e.server, owner, game.id, { 'game.bat': '@echo off\r\n', 'data/level.txt': 'x'.repeat(5000) }, { tags: ['os:windows'], entrypoint: ['game.bat'], title: 'Windows build' });
  const linux = await uploadPackage(e2e.server, owner, game.id, { 'game.sh': '#!/bin/sh\n', 'data/level.txt': 'y'.repeat(9000) }, { tags: ['os:linux', 'arch:x86'], entrypoint: ['game.sh'], title: 'Linux build' });
  packages = { web: web.id, windows: windows.id, linux: linux.id };
  const branch = await call('POST', `${base}/branches`, { title: branchTitle });
  gameBranch = branch.id;
  await call('PATCH', `${base}/branches/${branch.id}`, { isPublic: true });
  const version = await call('POST', `${base}/versions`, { title: '2.1.0', description: 'Faster **rockets**.\n\n- New moon', packages: [web.id, windows.id, linux.id] });
  await call('POST', `${base}/branches/${branch.id}/versions/${version.id}`);
  await setStoreMedia(e2e.server, owner, game.id, { cover: { width: 1920, height: 1080 }, screenshots: 4, screenshotSize: { width: 1280, height: 720 }, seed: 3 });
  // A game without a web build: its page leads with the cover itself (a wide one).
  plain = await listedProject(e2e.server, owner, 'Quiet Harbour', { platforms: ['windows', 'linux'], description: '# Quiet Harbour\n\nSail a small boat between islands and trade what you find.' });
  await setStoreMedia(e2e.server, owner, plain.project.id, { cover: { width: 2400, height: 1000 }, screenshots: 4, screenshotSize: { width: 1280, height: 720 }, seed: 7 });
}, 180_000);
afterAll(async () => {
  await helper?.dispose();
  await e2e?.close();
});

const storePath = (id: string) => `/store/${encodeURIComponent(id)}`;

/** Data loaded, fonts and the pictures of the first screen at rest. */
async function settle(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelector('main .state_loading, .page_processing') === null && document.querySelector('.store_primary') !== null, undefined, { timeout: 15_000 });
  await page.evaluate(() => document.fonts.ready);
  await page.waitForFunction(() => [...document.querySelectorAll('.store_media img, .store_gallery_item:first-child img')].every((img) => (img as HTMLImageElement).complete), undefined, { timeout: 15_000 });
}

type Box = { top: number; bottom: number; height: number };

/** Where the first screen's parts are, in page pixels, with the page scrolled to the top. */
async function firstScreen(page: Page): Promise<{ viewport: number; media: Box | null; pitch: Box | null; card: Box | null; button: Box | null; shot: Box | null; sideways: number }> {
  return page.evaluate(() => {
    window.scrollTo(0, 0);
    const box = (selector: string) => {
      const element = document.querySelector(selector);
      if (!element) return null;
      const rect = element.getBoundingClientRect();
      return { top: rect.top + window.scrollY, bottom: rect.bottom + window.scrollY, height: rect.height };
    };
    return {
      viewport: window.innerHeight,
      media: box('.store_media'),
      pitch: box('.store_pitch'),
      card: box('.store_primary'),
      button: box('.store_primary .store_offer_first .button'),
      shot: box('.store_gallery_item'),
      sideways: document.scrollingElement!.scrollWidth - window.innerWidth,
    };
  });
}

const variants = [
  ['light', 'light', 'en'],
  ['dark', 'dark', 'en'],
  ['ar', 'light', rtlLanguage],
] as const;

test('the first screen at 1280×800 and 375×812, light, dark and Arabic: cover at most half, pitch, card and first screenshot in view', async () => {
  const problems: string[] = [];
  for (const [width, height, agent] of [
    [1280, 800, agents.windows],
    [375, 812, agents.iphone],
    // A desktop browser in a narrow window: the card also offers the local app.
    [375, 812, agents.windows],
  ] as const) {
    for (const [variant, theme, lang] of variants) {
      const { page, context } = await e2e.open({ viewport: { width, height }, colorScheme: theme, storage: { theme, lang }, userAgent: agent });
      for (const [name, project] of [
        ['game', game.id],
        ['cover', plain.project.id],
      ] as const) {
        await visit(page, storePath(project), 'page_store_project');
        await settle(page);
        expect(await page.evaluate(() => document.documentElement.dir)).toBe(lang === 'ar' ? 'rtl' : 'ltr');
        const where = `${name} at ${width}×${height} (${variant}, ${agent === agents.iphone ? 'phone' : 'desktop'} browser)`;
        const shown = await firstScreen(page);
        // A phone gets no download of a desktop game: the card says so instead of a button.
        const offers = await page.locator('.store_primary').getAttribute('data-action');
        if (!shown.media || !shown.pitch || !shown.card || !shown.shot || (offers !== 'none' && !shown.button)) {
          problems.push(`${where}: a part is missing ${JSON.stringify(shown)}`);
        } else {
          if (shown.media.height > shown.viewport * 0.5) problems.push(`${where}: the cover is ${shown.media.height} px of ${shown.viewport}`);
          for (const [part, box] of [
            ['pitch', shown.pitch],
            ['card', shown.card],
            ['first screenshot', shown.shot],
          ] as const) {
            if (box.bottom > shown.viewport) problems.push(`${where}: the ${part} ends at ${Math.round(box.bottom)} px, below the first screen (${shown.viewport})`);
          }
        }
        if (shown.sideways > 0) problems.push(`${where}: scrolls sideways by ${shown.sideways} px`);
        {
          const file = `store-page-${name}-${width}-${variant}${agent === agents.windows && width === 375 ? '-desktop-browser' : ''}`;
          await page.screenshot({ path: join(artifacts, `${file}-first-screen.png`) });
          // The whole page with every lazy picture loaded.
          await page.evaluate(() => {
            for (const img of document.querySelectorAll('main img')) img.scrollIntoView();
            window.scrollTo(0, 0);
          });
          await page.waitForFunction(() => [...document.querySelectorAll('main img')].every((img) => (img as HTMLImageElement).complete), undefined, { timeout: 15_000 });
          await page.screenshot({ path: join(artifacts, `${file}.png`), fullPage: true });
        }
      }
      await context.close();
    }
  }
  expect(problems).toEqual([]);
}, 180_000);

test('every point at 1280×800 and 375×812 in light, dark and Arabic: the offers, folded downloads, no branch name, the game in the page', async () => {
  for (const [width, height] of [
    [1280, 800],
    [375, 812],
  ] as const) {
    for (const [variant, theme, lang] of variants) {
      const where = `${width}×${height} ${variant}`;
      const { page, context } = await e2e.open({ viewport: { width, height }, colorScheme: theme, storage: { theme, lang }, userAgent: agents.windows });
      await visit(page, storePath(game.id), 'page_store_project');
      expect({ where, offers: await offersOf(page) }).toEqual({ where, offers: ['play', 'download', 'install'] });
      expect({ where, torrents: await page.locator('.store_package button').filter({ visible: true }).count() }).toEqual({ where, torrents: 0 });
      expect({ where, named: (await page.locator('main').innerText()).includes(branchTitle) }).toEqual({ where, named: false });
      await page.locator('.store_game_run').click();
      const frame = page.locator('.store_game iframe.play_frame_iframe');
      await frame.waitFor({ timeout: 10_000 });
      expect({ where, sandbox: await frame.getAttribute('sandbox'), origin: new URL((await frame.getAttribute('src'))!).origin }).toEqual({
        where,
        sandbox: PLAY_SANDBOX,
        origin: new URL(e2e.server.playUrl).origin,
      });
      await page.locator('.store_downloads_summary').click();
      await page.locator('.store_package button').first().waitFor();
      expect({ where, named: (await page.locator('main').innerText()).includes(branchTitle) }).toEqual({ where, named: false });
      await page.screenshot({ path: join(artifacts, `store-page-game-open-${width}-${variant}.png`), fullPage: true });
      await context.close();
    }
  }
}, 120_000);

test('Run game: the web build plays inside the store page, from the play origin in the play sandbox; fullscreen; nothing loads before the click', async () => {
  const { page, context } = await e2e.open({ userAgent: agents.windows });
  const problems = watchConsole(page);
  await listenToGame(context);
  const playRequests: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).origin === new URL(e2e.server.playUrl).origin) playRequests.push(request.url());
    if (request.url().includes('storePackageUrl')) playRequests.push(request.url());
  });
  await page.goto('/');
  await page.evaluate(() => localStorage.setItem('secret', 'app-secret'));
  await visit(page, storePath(game.id), 'page_store_project');
  const media = page.locator('.store_media.store_game');
  await media.locator('.store_game_run').waitFor({ timeout: 10_000 });
  // Click to load: the cover under Run game, no frame and no play URL yet.
  expect(await media.getAttribute('data-state')).toBe('idle');
  expect(await media.locator('img.store_cover_image').count()).toBe(1);
  expect(await media.locator('.store_game_package').textContent()).toBe('Browser build');
  await page.waitForLoadState('networkidle');
  expect(await page.locator('iframe').count()).toBe(0);
  expect(playRequests).toEqual([]);

  await media.getByRole('button', { name: en('store_run_game'), exact: true }).click();
  const frame = page.locator('.store_game[data-state="running"] iframe.play_frame_iframe');
  await frame.waitFor({ timeout: 10_000 });
  expect(await frame.getAttribute('sandbox')).toBe(PLAY_SANDBOX);
  expect(await frame.getAttribute('allow')).toBe(PLAY_ALLOW);
  expect(await frame.getAttribute('title')).toBe(en('play_page_frame_title', { title: 'Browser build' }));
  const src = new URL((await frame.getAttribute('src'))!);
  expect(src.origin).toBe(new URL(e2e.server.playUrl).origin);
  expect(src.origin).not.toBe(new URL(e2e.server.url).origin);
  const [first] = await waitForGameMessages(page, 1);
  expect(first!.pixel).toBe('0,128,255,255');
  // An opaque origin (no allow-same-origin): the game cannot read the app's storage.
  expect(first!.origin).toBe('null');
  expect(first!.storage).toStartWith('failed ');
  // The keyboard goes to the game.
  await page.waitForFunction(() => document.activeElement?.tagName === 'IFRAME');
  // Still on the store page, with the way to the play page of its own.
  expect(new URL(page.url()).pathname).toBe(storePath(game.id));
  expect(await page.getByRole('link', { name: en('store_game_own_page'), exact: true }).getAttribute('href')).toBe(`${storePath(game.id)}/${gameBranch}/${packages.web}/play`);

  await page.locator('.store_game').getByRole('button', { name: en('play_page_fullscreen'), exact: true }).click();
  await page.waitForFunction(() => document.fullscreenElement !== null, undefined, { timeout: 5_000 });
  expect(await page.evaluate(() => document.fullscreenElement?.className)).toBe('play_frame_container');
  expect(await page.evaluate(() => Boolean(document.fullscreenElement?.closest('.store_game')))).toBe(true);
  await page.evaluate(() => document.exitFullscreen());
  await page.screenshot({ path: join(artifacts, 'store-page-game-running-1280-light.png') });

  // Reset starts it over in a new frame.
  await page.locator('.store_game').getByRole('button', { name: en('play_page_reset'), exact: true }).click();
  await waitForGameMessages(page, 2);
  expect(await frame.getAttribute('data-run')).toBe('1');
  expect(problems).toEqual([]);
  await context.close();

  // The card's Play in browser (its first offer) starts the same frame in the page.
  const second = await e2e.open({ userAgent: agents.windows, viewport: { width: 375, height: 812 } });
  await listenToGame(second.context);
  await visit(second.page, storePath(game.id), 'page_store_project');
  const play = second.page.locator('.store_primary .store_offer_first').getByRole('button', { name: en('package_page_play_browser'), exact: true });
  await play.click();
  await second.page.locator('.store_game iframe.play_frame_iframe').waitFor({ timeout: 10_000 });
  await waitForGameMessages(second.page, 1);
  expect(new URL(second.page.url()).pathname).toBe(storePath(game.id));
  // Scrolled to it: the frame is on screen.
  const frameBox = await second.page.locator('.store_game .play_frame_container').boundingBox();
  expect(frameBox!.y).toBeGreaterThanOrEqual(0);
  expect(frameBox!.y).toBeLessThan(812);
  // Asked again from further down: back to the same game (not restarted), in view, with the keyboard.
  await second.page.evaluate(() => window.scrollTo(0, document.scrollingElement!.scrollHeight));
  await second.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await play.click();
  await second.page.waitForFunction(() => document.activeElement?.tagName === 'IFRAME');
  const again = await second.page.locator('.store_game .play_frame_container').boundingBox();
  expect(again!.y + again!.height).toBeGreaterThan(0);
  expect(again!.y).toBeLessThan(812);
  expect(await second.page.locator('.store_game iframe').getAttribute('data-run')).toBe('0');
  await second.context.close();
}, 60_000);

/** The card's offers in order (data-offer of each). */
async function offersOf(page: Page): Promise<string[]> {
  await page.locator('.store_primary').waitFor({ timeout: 10_000 });
  return page.locator('.store_primary [data-offer]').evaluateAll((items) => items.map((item) => item.getAttribute('data-offer') ?? ''));
}

test('the card offers every way to play, least effort first; visitors without the local app get one offer and no Install rows', async () => {
  for (const [agent, expected, download] of [
    [agents.windows, ['play', 'download', 'install'], 'Windows'],
    [agents.linux, ['play', 'download', 'install'], 'Linux'],
    [agents.iphone, ['play'], null],
  ] as const) {
    const { page, context } = await e2e.open({ userAgent: agent });
    await visit(page, storePath(game.id), 'page_store_project');
    expect(await offersOf(page)).toEqual([...expected]);
    expect(await page.locator('.store_primary').getAttribute('data-action')).toBe('play');
    expect(await page.locator('.store_primary .store_offer_first .button').textContent()).toBe(en('package_page_play_browser'));
    if (download) {
      await page.locator('.store_primary [data-offer="download"]').getByRole('button', { name: en('store_primary_download', { platform: download }), exact: true }).waitFor();
      // One clear way to the local app: a link to /local saying what it does; nothing disabled.
      const install = page.locator('.store_primary [data-offer="install"]');
      const link = install.getByRole('link', { name: en('store_install_local'), exact: true });
      expect(await link.getAttribute('href')).toBe('/local');
      const hint = page.locator('.store_primary .store_offer_hint');
      expect(await hint.textContent()).toBe(en('store_install_local_hint'));
      expect(await link.getAttribute('aria-describedby')).toBe(await hint.getAttribute('id'));
      expect(await page.getByRole('link', { name: en('store_install_local'), exact: true }).count()).toBe(1);
    }
    await page.locator('.store_downloads_summary').click();
    await page.locator('.store_downloads .store_package').first().waitFor();
    expect(await page.locator('.store_downloads .store_package').count()).toBe(3);
    expect(await page.locator('main [data-action="install"], main [data-action="launch"], main [data-action="update"], main [data-action="local_setup"]').count()).toBe(0);
    expect(await page.locator('main button[disabled]').count()).toBe(0);
    expect(await page.locator('main').textContent()).not.toContain(en('package_page_local_unavailable'));
    await context.close();
  }

  // The download offer downloads the visitor's build.
  const { page, context } = await e2e.open({ userAgent: agents.linux });
  await visit(page, storePath(game.id), 'page_store_project');
  const downloaded = page.waitForEvent('download', { timeout: 15_000 });
  await page.locator('.store_primary [data-offer="download"] button').click();
  const file = await downloaded;
  expect(new URL(file.url()).pathname).toContain(packages.linux);
  await file.cancel();
  await context.close();
}, 60_000);

test('"All downloads" keeps the torrents and the package list folded until opened; a single public branch is not named', async () => {
  const { page, context } = await e2e.open({ userAgent: agents.windows });
  await visit(page, storePath(game.id), 'page_store_project');
  const downloads = page.locator('details.store_downloads');
  await downloads.waitFor({ timeout: 10_000 });
  expect(await downloads.locator('summary').textContent()).toBe(en('store_downloads_heading'));
  const torrent = page.getByRole('button', { name: en('package_page_download_torrent'), exact: true });
  const zip = page.getByRole('button', { name: en('package_page_download_zip'), exact: true });
  expect(await torrent.count()).toBe(0);
  expect(await zip.count()).toBe(0);
  expect(await page.locator('.store_package').first().isVisible()).toBe(false);
  // No developer words anywhere: not the branch's name, not tag codes.
  expect(await page.locator('main').innerText()).not.toContain(branchTitle);
  expect(await page.locator('main').innerText()).not.toContain('os:');

  // The card's link opens the list and goes to it.
  await page.locator('.store_primary_all').click();
  await page.waitForFunction(() => location.hash === '#store-downloads');
  expect(await downloads.evaluate((details) => (details as HTMLDetailsElement).open)).toBe(true);
  expect(await torrent.count()).toBe(3);
  await torrent.first().waitFor();
  expect(await page.locator('.store_package_title').allTextContents()).toEqual(['Browser build', 'Windows build', 'Linux build']);
  // Still no branch name: one public branch is the game itself.
  expect(await downloads.innerText()).not.toContain(branchTitle);
  expect(await downloads.locator('.store_branch_title').count()).toBe(0);
  expect(await downloads.textContent()).toContain(en('store_branch_version', { version: '2.1.0' }));
  // The torrent of a package downloads from here.
  const saved = page.waitForEvent('download', { timeout: 15_000 });
  await page.locator(`.store_package[data-package-id="${packages.windows}"]`).getByRole('button', { name: en('package_page_download_torrent'), exact: true }).click();
  expect((await saved).suggestedFilename()).toMatch(/\.torrent$/);
  // Closed again by its summary.
  await page.locator('.store_downloads_summary').click();
  await page.waitForFunction(() => !(document.querySelector('details.store_downloads') as HTMLDetailsElement).open);
  expect(await page.locator('.store_package').first().isVisible()).toBe(false);
  await context.close();
}, 60_000);

test('release notes render as notes; the information table says platforms, version, date, size and the developer with public accounts', async () => {
  const { page, context } = await e2e.open({ userAgent: agents.windows });
  await visit(page, storePath(game.id), 'page_store_project');
  const notes = page.locator('section.store_notes');
  await notes.waitFor({ timeout: 10_000 });
  expect(await notes.locator('h2').textContent()).toBe(en('store_notes_heading'));
  expect(await notes.locator('strong').textContent()).toBe('rockets');
  expect(await notes.locator('li').allTextContents()).toEqual(['New moon']);
  expect(await notes.textContent()).not.toContain('**');
  expect(await notes.locator('h3').textContent()).toContain(en('store_branch_version', { version: '2.1.0' }));
  expect(await notes.locator('h3').textContent()).not.toContain(branchTitle);

  const info = page.locator('section.store_info');
  expect(await info.locator('h2').textContent()).toBe(en('store_info_heading'));
  const row = (name: string) => info.locator(`tr[data-row="${name}"]`);
  expect(await info.locator('tr').evaluateAll((rows) => rows.map((item) => item.getAttribute('data-row')))).toEqual(['platforms', 'version', 'updated', 'size', 'developer']);
  expect(await row('platforms').locator('li').allTextContents()).toEqual(['Windows', 'Linux', en('edit_tags_value_web')]);
  expect(await row('version').locator('td').textContent()).toBe('2.1.0');
  const published = (await row('updated').locator('time').getAttribute('datetime'))!;
  expect(await row('updated').locator('time').textContent()).toBe(new Intl.DateTimeFormat('en', { dateStyle: 'medium' }).format(new Date(published)));
  const sizes = await row('size').locator('[data-bytes]').evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-bytes'))));
  expect(sizes).toHaveLength(2);
  expect(sizes[0]!).toBeLessThan(sizes[1]!);
  expect(await row('developer').locator('th').textContent()).toBe(en('store_owner_heading'));
  expect(await row('developer').locator('[data-testid="store-owner"]').textContent()).toBe('ada_dev');
  const profile = row('developer').locator('.store_credentials a', { hasText: 'Ada on GitHub' });
  expect(await profile.getAttribute('href')).toBe('https://github.com/adadev');
  expect(await profile.getAttribute('rel')).toBe('ugc nofollow noopener');
  // The pitch under the title is the description's first paragraph, in its language.
  expect(await page.locator('.store_pitch').textContent()).toBe(pitch);
  expect(await page.locator('.store_pitch').getAttribute('lang')).toBe('en');
  expect(await page.locator('.store_byline').textContent()).toBe(en('store_by_owner', { owner: 'ada_dev' }));
  await context.close();
}, 30_000);

/**
 * The project's store tags (PATCH /projects/{project} {storeTags}) make the table's last row, normalised
 * and in the owner's order, each a link to the store search; one opens the index searching for it,
 * listing the project (and not a game without the tag). The table's other rows stay as they were.
 */
test('store tags set through the API show in the information table; a tag opens the store search that lists the project', async () => {
  const updated = await call<{ storeTags: string[] }>('PATCH', `/api/projects/${game.id}`, { storeTags: ['Puzzle', 'space  farming'] });
  expect(updated.storeTags).toEqual(['puzzle', 'space farming']);
  const { page, context } = await e2e.open({ userAgent: agents.windows });
  try {
    await visit(page, storePath(game.id), 'page_store_project');
    const info = page.locator('section.store_info');
    const tagsRow = info.locator('tr[data-row="tags"]');
    await tagsRow.waitFor({ timeout: 10_000 });
    expect(await info.locator('tr').evaluateAll((rows) => rows.map((item) => item.getAttribute('data-row')))).toEqual(['platforms', 'version', 'updated', 'size', 'developer', 'tags']);
    expect(await tagsRow.locator('th').textContent()).toBe(en('store_info_tags'));
    const links = tagsRow.getByRole('link');
    expect(await links.allTextContents()).toEqual(['puzzle', 'space farming']);
    expect(await links.evaluateAll((items) => items.map((item) => item.getAttribute('href')))).toEqual(['/store?q=puzzle', '/store?q=space%20farming']);

    await tagsRow.getByRole('link', { name: 'space farming', exact: true }).click();
    await page.locator('main#content.page_store_index').waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).searchParams.get('q')).toBe('space farming');
    expect(await page.locator('.store_index_search_input').inputValue()).toBe('space farming');
    await page.waitForFunction(() => document.querySelectorAll('.store_card').length > 0 && !document.querySelector('.store_grid[data-searching], main .state_loading'), undefined, { timeout: 10_000 });
    expect(await page.locator('.store_card_title').allTextContents()).toEqual([title]);
    expect(await page.locator('.store_card').getAttribute('data-project-id')).toBe(game.id);
  } finally {
    await context.close();
  }
}, 30_000);

/** The page's calls of 127.0.0.1:17303 go to the app's real port (local-app.test.ts explains why). */
async function forwardHelper(context: BrowserContext, app: LocalHelper): Promise<void> {
  await context.route(`http://127.0.0.1:${LOCAL_HELPER_PORT}/**`, async (route: Route) => {
    const request = route.request();
    const url = new URL(request.url());
    let response: Response;
    try {
      const headers = await request.allHeaders();
      delete headers['content-length'];
      const body = request.postDataBuffer();
      response = await fetch(`${app.url}${url.pathname}${url.search}`, { method: request.method(), headers, body: body ? new Uint8Array(body) : undefined });
    } catch {
      await route.abort('connectionrefused');
      return;
    }
    await route.fulfill({ status: response.status, headers: Object.fromEntries(response.headers), body: Buffer.from(await response.arrayBuffer()) });
  });
}

test('a player whose local app answers: Install before the download in the card, and Install in every row', async () => {
  helper = await startLocalHelper();
  const origin = new URL(e2e.server.url).origin;
  expect(helper.cli(['trust', origin]).exitCode).toBe(0);
  const { page, context } = await e2e.open({ userAgent: agents.linux, storage: { local_app_seen: '1' } });
  await forwardHelper(context, helper);
  await visit(page, storePath(game.id), 'page_store_project');
  await page.locator('.store_primary [data-offer="install"] [data-action="install"] button:not([disabled])').waitFor({ timeout: 15_000 });
  expect(await offersOf(page)).toEqual(['play', 'install', 'download']);
  expect(await page.getByRole('link', { name: en('store_install_local'), exact: true }).count()).toBe(0);
  await page.locator('.store_downloads_summary').click();
  const rows = page.locator('.store_downloads .store_local_launchers [data-action="install"] button');
  await rows.first().waitFor();
  expect(await rows.count()).toBe(3);
  // The card's Install opens the install dialog for the Linux build.
  await page.locator('.store_primary [data-offer="install"] [data-action="install"] button').click();
  const dialog = openDialog(page);
  await dialog.waitFor();
  expect(await dialog.textContent()).toContain('Linux build');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  await context.close();
}, 60_000);

for (const theme of ['light', 'dark'] as const) {
  test(`axe, ${theme} theme: the store page with a web game, idle, running, and with every download open`, async () => {
    const { page, context } = await e2e.open({ colorScheme: theme, storage: { theme }, userAgent: agents.windows });
    await visit(page, storePath(game.id), 'page_store_project');
    await settle(page);
    const { problems, check } = axeProblems(theme);
    await check(page, 'store page');
    await page.locator('.store_downloads_summary').click();
    await page.locator('.store_downloads .store_package').first().waitFor();
    await check(page, 'all downloads open');
    await page.locator('.store_game_run').click();
    await page.locator('.store_game iframe').waitFor({ timeout: 10_000 });
    await check(page, 'game running');
    await context.close();
    expect(problems).toEqual([]);
  }, 60_000);
}

test('Arabic: the card, the table and the downloads in the page language, right to left', async () => {
  const { page, context } = await e2e.open({ storage: { lang: rtlLanguage }, userAgent: agents.windows });
  await visit(page, storePath(game.id), 'page_store_project');
  await page.locator('.store_primary').waitFor({ timeout: 10_000 });
  expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
  expect(await page.locator('.store_game_run').textContent()).toContain(message(rtlLanguage, 'store_run_game'));
  expect(await page.locator('.store_info h2').textContent()).toBe(message(rtlLanguage, 'store_info_heading'));
  expect(await page.locator('.store_downloads summary').textContent()).toBe(message(rtlLanguage, 'store_downloads_heading'));
  expect(await page.locator('.store_primary [data-offer="install"] a').textContent()).toBe(message(rtlLanguage, 'store_install_local'));
  // The side column is on the left in right-to-left (the start is on the right).
  const media = (await page.locator('.store_media').boundingBox())!;
  const side = (await page.locator('.store_side').boundingBox())!;
  expect(side.x + side.width).toBeLessThanOrEqual(media.x + 1);
  await context.close();
}, 30_000);
