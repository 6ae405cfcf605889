import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { BrowserContext, Page } from 'playwright-core';
import type { Package } from '../../src/shared/schemas/packages.ts';
import type { TestUser } from '../support/accounts.ts';
import { uploadPackage } from '../support/packages.ts';
import { makePublic, makeTeam, type Team } from '../support/projects.ts';
import { en, startE2E, visit, type E2E } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';
import { drawingGameFiles, listenToGame, waitForGameMessages } from './support/drawing-game.ts';

/** Spec §2 play pages: .../packages/{package}/play and store/{project}/{branch}/{package}/play. */
let e2e: E2E;
let team: Team;
let webPackage: Package;
let linuxPackage: Package;
let branch: { id: string };

async function api<T = { id: string }>(method: string, path: string, user: TestUser, json?: unknown): Promise<T> {
  const response = await e2e.server.fetch(path, { method, token: user.token, json });
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

beforeAll(async () => {
  e2e = await startE2E();
  team = await makeTeam(e2e.server);
  webPackage = await uploadPackage(e2e.server, team.developer, team.project.id, drawingGameFiles('Canvas game'), { tags: ['os:web'], entrypoint: ['index.html'], title: 'Canvas game' });
  linuxPackage = await uploadPackage(e2e.server, team.developer, team.project.id, { 'run.sh': '#!/bin/sh\n' }, { tags: ['os:linux'], title: 'Linux only' });
  const base = `/api/projects/${team.project.id}`;
  branch = await api('POST', `${base}/branches`, team.owner, { title: 'main' });
  await api('PATCH', `${base}/branches/${branch.id}`, team.owner, { isPublic: true });
  const version = await api('POST', `${base}/versions`, team.owner, { title: '1.0', description: '', packages: [webPackage.id, linuxPackage.id] });
  await api('POST', `${base}/branches/${branch.id}/versions/${version.id}`, team.owner);
  await makePublic(e2e.server, team.project, team.owner);
}, 90_000);
afterAll(async () => {
  await e2e?.close();
});

test('the game runs sandboxed from the play origin; Reset starts it again; it cannot read the app storage', async () => {
  const { page, context } = await e2e.openSignedIn({ user: team.tester });
  await listenToGame(context);
  await page.goto('/');
  await page.evaluate(() => localStorage.setItem('secret', 'app-secret'));
  await visit(page, `/projects/${team.project.id}/packages/${webPackage.id}/play`, 'page_package_play');
  // The title follows once the package has loaded.
  await page.waitForFunction((title) => document.title === title, `${en('play_page_title', { title: 'Canvas game' })} - Cartridge`, { timeout: 10_000 });
  const frame = page.locator('iframe.play_frame_iframe');
  await frame.waitFor({ timeout: 10_000 });
  expect(await frame.getAttribute('sandbox')).toBe('allow-scripts allow-pointer-lock allow-popups allow-forms allow-modals allow-downloads');
  expect(await frame.getAttribute('allow')).toBe('fullscreen; gamepad; autoplay');
  expect(await frame.getAttribute('title')).toBe(en('play_page_frame_title', { title: 'Canvas game' }));
  const src = (await frame.getAttribute('src'))!;
  expect(new URL(src).origin).toBe(new URL(e2e.server.playUrl).origin);
  expect(new URL(src).origin).not.toBe(new URL(e2e.server.url).origin);

  const [first] = await waitForGameMessages(page, 1);
  expect(first!.pixel).toBe('0,128,255,255'); // the canvas really drew
  expect(first!.origin).toBe('null'); // an opaque origin: no allow-same-origin
  expect(first!.storage).toStartWith('failed ');
  expect(first!.storage).not.toContain('app-secret');

  await page.getByRole('button', { name: en('play_page_reset'), exact: true }).click();
  const again = await waitForGameMessages(page, 2);
  expect(again).toHaveLength(2);
  expect(await frame.getAttribute('data-run')).toBe('1');

  await page.getByRole('button', { name: en('play_page_fullscreen'), exact: true }).click();
  await page.waitForFunction(() => document.fullscreenElement !== null, undefined, { timeout: 5_000 });
  expect(await page.evaluate(() => document.fullscreenElement?.className)).toBe('play_frame_container');
  await page.evaluate(() => document.exitFullscreen());

  // The way back leads to the package page.
  await page.getByRole('link', { name: en('play_page_back'), exact: true }).click();
  await page.locator('main.page_package h1', { hasText: 'Canvas game' }).waitFor();
  await context.close();
});

test('a package that is not for the web says so instead of a frame', async () => {
  const { page, context } = await e2e.openSignedIn({ user: team.tester });
  await visit(page, `/projects/${team.project.id}/packages/${linuxPackage.id}/play`, 'page_package_play');
  await page.locator('[data-testid="play-not-web"]').waitFor({ timeout: 10_000 });
  expect(await page.locator('[data-testid="play-not-web"]').textContent()).toBe(en('play_page_not_web'));
  expect(await page.locator('iframe').count()).toBe(0);
  await context.close();
});

test('the store play route works signed out for a public branch’s current version', async () => {
  const { page, context } = await e2e.open();
  await listenToGame(context);
  await visit(page, `/store/${team.project.id}/${branch.id}/${webPackage.id}/play`, 'page_package_play');
  const [first] = await waitForGameMessages(page, 1);
  expect(first!.pixel).toBe('0,128,255,255');
  const crumbs = await page.locator('nav.breadcrumb li').allTextContents();
  expect(crumbs.slice(-2)).toEqual([team.project.title, en('play_page_title', { title: 'Canvas game' })]);
  // A package that is not in the branch's current version is not found there.
  await visit(page, `/store/${team.project.id}/${branch.id}/unknown-package/play`, 'page_not_found');
  await context.close();
});

test('the frame gives a 800×600 game its whole size on a desktop, and the whole viewport on a phone (issue 13)', async () => {
  const bigGame = '<!doctype html><html><head><style>body{margin:0}canvas{display:block}</style></head><body><canvas width="800" height="600"></canvas></body></html>';
  const big = await uploadPackage(e2e.server, team.developer, team.project.id, { 'index.html': bigGame }, { tags: ['os:web'], entrypoint: ['index.html'], title: 'Big canvas' });
  for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
    const { page, context } = await e2e.openSignedIn({ user: team.tester, viewport });
    await visit(page, `/projects/${team.project.id}/packages/${big.id}/play`, 'page_package_play');
    const canvas = page.frameLocator('iframe.play_frame_iframe').locator('canvas');
    await canvas.waitFor({ timeout: 15_000 });
    const frame = (await page.locator('iframe.play_frame_iframe').boundingBox())!;
    if (viewport.width > 800) {
      // Not clipped: the whole canvas lies inside the frame, and the frame inside the viewport.
      const game = (await canvas.boundingBox())!;
      expect(game.x + game.width).toBeLessThanOrEqual(frame.x + frame.width + 0.5);
      expect(game.y + game.height).toBeLessThanOrEqual(frame.y + frame.height + 0.5);
      expect(frame.y + frame.height).toBeLessThanOrEqual(viewport.height);
    } else {
      // A phone: the frame is as wide and as tall as the screen.
      expect(Math.round(frame.width)).toBe(viewport.width);
      expect(Math.round(frame.height)).toBe(viewport.height);
    }
    await context.close();
  }
}, 45_000);

test('axe in light and dark theme on the play page', async () => {
  for (const theme of ['light', 'dark'] as const) {
    const { page, context } = await e2e.openSignedIn({ user: team.tester, colorScheme: theme, storage: { theme } });
    await listenToGame(context);
    await visit(page, `/projects/${team.project.id}/packages/${webPackage.id}/play`, 'page_package_play');
    await waitForGameMessages(page, 1);
    const violations = await seriousAccessibilityViolations(page);
    if (violations.length > 0) throw new Error(formatViolations(violations, `play page (${theme})`));
    await context.close();
  }
}, 60_000);

test('the app works under its CSP: not one violation on the pages a member and a visitor see (issue 13)', async () => {
  const description = '# About\n\n**Bold**, a [link](https://example.com) and an image ![shot](https://example.com/shot.png).\n\n<span style="color:red">styled</span>';
  await api('PUT', `/api/projects/${team.project.id}/description`, team.owner, { markdown: description });
  const collectViolations = (context: BrowserContext) =>
    context.addInitScript(() => {
      const violations: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = violations;
      document.addEventListener('securitypolicyviolation', (event) => violations.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
  const violationsOf = (page: Page) => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);

  const member = await e2e.openSignedIn({ user: team.owner });
  await collectViolations(member.context);
  await listenToGame(member.context);
  const screens: [string, string][] = [
    ['/', 'page_home'],
    ['/me', 'page_me'],
    ['/projects', 'page_projects'],
    [`/projects/${team.project.id}/manage`, 'page_manage'],
    [`/projects/${team.project.id}/packages/${webPackage.id}`, 'page_package'],
    ['/docs/en/', 'page_docs'],
  ];
  for (const [path, pageClass] of screens) {
    await visit(member.page, path, pageClass);
    expect({ path, violations: await violationsOf(member.page) }).toEqual({ path, violations: [] });
  }
  // The description's markup is rendered and its images allowed. The style attribute a user wrote is
  // removed by the sanitiser; Chromium reports it once while DOMPurify parses the markup in an inert
  // document, which is the only report allowed here.
  await visit(member.page, `/projects/${team.project.id}`, 'page_project_overview');
  await member.page.locator('main img[alt="shot"]').waitFor({ timeout: 10_000 });
  expect(await member.page.locator('main span', { hasText: 'styled' }).getAttribute('style')).toBeNull();
  expect((await violationsOf(member.page)).filter((item) => !item.startsWith('style-src-attr'))).toEqual([]);
  // The game in its frame from the play origin.
  await visit(member.page, `/projects/${team.project.id}/packages/${webPackage.id}/play`, 'page_package_play');
  await waitForGameMessages(member.page, 1);
  expect(await violationsOf(member.page)).toEqual([]);
  await member.context.close();

  const visitor = await e2e.open();
  await collectViolations(visitor.context);
  for (const [path, pageClass] of [['/login', 'page_sign_in'], ['/register', 'page_register']] as const) {
    await visit(visitor.page, path, pageClass);
    expect({ path, violations: await violationsOf(visitor.page) }).toEqual({ path, violations: [] });
  }
  // The store shows the same description: the same one report while it is sanitised.
  await visit(visitor.page, `/store/${team.project.id}`, 'page_store_project');
  await visitor.page.locator('main img[alt="shot"]').waitFor({ timeout: 10_000 });
  expect((await violationsOf(visitor.page)).filter((item) => !item.startsWith('style-src-attr'))).toEqual([]);
  await visitor.context.close();
}, 60_000);

test('no page of another origin can frame the app (issue 13)', async () => {
  const { page, context } = await e2e.openSignedIn({ user: team.owner });
  const site = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () => new Response(`<!doctype html><iframe id="app" src="${e2e.server.url}/me" width="800" height="600"></iframe>`, { headers: { 'content-type': 'text/html' } }),
  });
  try {
    const refused = page.waitForEvent('console', { predicate: (message) => /frame-ancestors|Refused to (display|frame)/.test(message.text()), timeout: 10_000 });
    await page.goto(`http://localhost:${site.port}/`);
    await refused;
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
    expect(frame).toBeDefined();
    // The frame holds Chromium's error page, not the signed-in profile.
    expect(await frame!.locator('main#content').count()).toBe(0);
  } finally {
    await site.stop(true);
    await context.close();
  }
});
