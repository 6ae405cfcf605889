import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { uploadPackage } from '../support/packages.ts';
import { makeTeam, type Team } from '../support/projects.ts';
import { en, rtlLanguage, startE2E, visit, type E2E } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';
import { restApi, type Item } from './support/projects.ts';

/**
 * Issue 19's visual pass: the main screens as a signed-in developer with a small project, at 1280 and
 * 375 px, in the light and dark themes, in English and Arabic (right to left). Every screen must fit a
 * 375 px phone without horizontal scrolling and be axe-core clean; each leaves a full-page screenshot
 * under tests/artifacts/visual/ for a person to look at (the folder is ignored by git).
 */
let e2e: E2E;
let team: Team;
let branch: Item;
let version: Item;
let linuxPackage: Package;

const artifacts = join(import.meta.dir, '..', 'artifacts', 'visual');
const { api, base } = restApi(() => e2e.server);

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  e2e = await startE2E();
  team = await makeTeam(e2e.server);
  const project = `/api/projects/${team.project.id}`;
  const description =
    '## A small game\n\nJump between **platforms** and collect stars. See the [manual](https://example.com/manual) for the controls.\n\n- Twelve levels\n- A boss\n';
  await e2e.server.fetch(`${project}/description`, { method: 'PUT', token: team.owner.token, json: { markdown: description, lang: null, images: [] } });
  const webPackage = await uploadPackage(
    e2e.server,
    team.owner,
    team.project.id,
    { 'index.html': '<!doctype html><title>Game</title><canvas></canvas><script src="game.js"></script>', 'game.js': 'void 0;' },
    { tags: ['os:web'], entrypoint: ['index.html'], title: 'Web build' },
  );
  linuxPackage = await uploadPackage(
    e2e.server,
    team.owner,
    team.project.id,
    { 'bin/run.sh': '#!/bin/sh\necho run\n', 'data/level1.txt': 'x'.repeat(5000), 'README.txt': 'Read me' },
    { tags: ['os:linux', 'arch:x86'], entrypoint: ['bin', 'run.sh'], title: 'Linux build', executables: ['bin/run.sh'] },
  );
  branch = await api('POST', `${base(team)}/branches`, team.owner, { title: 'main' });
  await api('POST', `${base(team)}/branches`, team.owner, { title: 'beta-with-a-rather-long-branch-name' });
  version = await api('POST', `${base(team)}/versions`, team.owner, {
    title: '1.0.0',
    description: '### What changed\n\n- Faster loading\n- New level',
    packages: [linuxPackage.id, webPackage.id],
  });
  await api('POST', `${base(team)}/branches/${branch.id}/versions/${version.id}`, team.owner);
}, 120_000);
afterAll(async () => {
  await e2e?.close();
});

type Screen = { name: string; path: () => string; pageClass: string; signedIn: boolean };

const screens: Screen[] = [
  { name: 'home', path: () => '/', pageClass: 'page_home', signedIn: true },
  { name: 'projects', path: () => '/projects', pageClass: 'page_projects', signedIn: true },
  { name: 'overview', path: () => `/projects/${team.project.id}`, pageClass: 'page_project_overview', signedIn: true },
  { name: 'branch', path: () => `/projects/${team.project.id}/branches/${branch.id}`, pageClass: 'page_branch', signedIn: true },
  { name: 'version', path: () => `/projects/${team.project.id}/branches/${branch.id}/versions/${version.id}`, pageClass: 'page_version', signedIn: true },
  { name: 'package', path: () => `/projects/${team.project.id}/branches/${branch.id}/versions/${version.id}/packages/${linuxPackage.id}`, pageClass: 'page_package', signedIn: true },
  { name: 'manage', path: () => `/projects/${team.project.id}/manage`, pageClass: 'page_manage', signedIn: true },
  { name: 'me', path: () => '/me', pageClass: 'page_me', signedIn: true },
  { name: 'docs', path: () => '/docs/{lang}/', pageClass: 'page_docs', signedIn: true },
  { name: 'sign-in', path: () => '/login', pageClass: 'page_sign_in', signedIn: false },
];

/** Waits until the screen's data has loaded: no spinner left in the page. */
async function settle(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelector('main .state_loading, .page_processing') === null, undefined, { timeout: 10_000 });
  // Fonts, lazy images and transitions come to rest before anything is measured.
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(150);
}

/** How far the page scrolls sideways (0 when it fits), and the widest element that sticks out. */
async function overflow(page: Page): Promise<{ by: number; culprit: string | null }> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const by = document.scrollingElement!.scrollWidth - width;
    if (by <= 0) return { by, culprit: null };
    let culprit: string | null = null;
    let widest = 0;
    for (const element of document.querySelectorAll('body *')) {
      const box = element.getBoundingClientRect();
      const out = Math.max(box.right - width, -box.left);
      if (out > widest) {
        widest = out;
        culprit = `${element.tagName.toLowerCase()}${element.className && typeof element.className === 'string' ? `.${element.className.trim().split(/\s+/).join('.')}` : ''}`;
      }
    }
    return { by, culprit };
  });
}

const widths = [1280, 375] as const;
const themes = ['light', 'dark'] as const;
const languages = ['en', rtlLanguage] as const;

for (const width of widths) {
  for (const theme of themes) {
    for (const lang of languages) {
      test(`visual pass at ${width} px, ${theme}, ${lang}: fits, axe clean, screenshots`, async () => {
        const options = { viewport: { width, height: width === 375 ? 812 : 800 }, colorScheme: theme, storage: { theme, lang } };
        const signedIn = await e2e.openSignedIn({ ...options, user: team.owner });
        const visitor = await e2e.open(options);
        const problems: string[] = [];
        try {
          for (const screen of screens) {
            const page = screen.signedIn ? signedIn.page : visitor.page;
            const path = screen.path().replace('{lang}', lang);
            await visit(page, path, screen.pageClass);
            await settle(page);
            const where = `${screen.name} (${width} px, ${theme}, ${lang}, ${path})`;
            const applied = await page.evaluate(() => [document.documentElement.getAttribute('data-theme'), document.documentElement.lang]);
            if (applied[0] !== theme || applied[1] !== lang) problems.push(`${where}: expected ${theme}/${lang}, got ${applied.join('/')}`);
            await page.screenshot({ path: join(artifacts, `${screen.name}-${width}-${theme}-${lang}.png`), fullPage: true });
            if (width === 375) {
              const wide = await overflow(page);
              if (wide.by > 0) problems.push(`${where}: scrolls sideways by ${wide.by} px (widest: ${wide.culprit})`);
            }
            const violations = await seriousAccessibilityViolations(page);
            if (violations.length > 0) problems.push(formatViolations(violations, where));
          }
        } finally {
          await signedIn.context.close();
          await visitor.context.close();
        }
        if (problems.length > 0) console.error(problems.join('\n'));
        expect(problems).toEqual([]);
      }, 120_000);
    }
  }
}

/** The logo: an inline SVG mark beside the instance's name in the header, and the tab icons (SVG, ICO, home screen) served. */
test('the header shows the SVG logo; the favicon, its ICO fallback and the home-screen icon are served', async () => {
  const { page, context } = await e2e.open();
  try {
    await visit(page, '/', 'page_home');
    const brand = page.locator('header .brand');
    expect(await brand.locator('svg.logo_mark').count()).toBe(1);
    expect(await brand.locator('svg.logo_mark').getAttribute('aria-hidden')).toBe('true');
    expect(await brand.textContent()).toBe('Cartridge');
    const icons = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLLinkElement>('link[rel="icon"], link[rel="apple-touch-icon"]')].map((link) => ({ rel: link.rel, type: link.type, href: link.href })),
    );
    expect(icons.map((icon) => icon.rel)).toEqual(['icon', 'icon', 'apple-touch-icon']);
    const expected = ['image/x-icon', 'image/svg+xml', 'image/png'];
    for (const [index, icon] of icons.entries()) {
      const response = await fetch(icon.href);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type') ?? '').toStartWith(expected[index]!);
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  } finally {
    await context.close();
  }
}, 30_000);

/** The new package dialog at 1280×800: the tags fit above the files, so the drop area shows without scrolling. */
for (const theme of themes) {
  test(`new package dialog at 1280×800 (${theme}): the drop area is above the fold`, async () => {
    const { page, context } = await e2e.openSignedIn({ viewport: { width: 1280, height: 800 }, colorScheme: theme, storage: { theme }, user: team.owner });
    try {
      await visit(page, `/projects/${team.project.id}/branches/${branch.id}`, 'page_branch');
      await page.getByRole('button', { name: en('branch_publish_new'), exact: true }).click();
      await page.locator('dialog[open]').first().getByRole('button', { name: en('upload_new_package'), exact: true }).click();
      const dialog = page.locator('dialog[open]', { has: page.getByRole('heading', { name: en('new_package_title'), exact: true }) });
      await dialog.waitFor({ timeout: 10_000 });
      await page.waitForTimeout(200);
      await page.screenshot({ path: join(artifacts, `new-package-dialog-1280-${theme}-en.png`) });
      const drop = await dialog.getByTestId('file-tree').boundingBox();
      expect(drop).not.toBeNull();
      // The drop area starts well inside the 800 px viewport, with room to see it (not a sliver at the bottom).
      expect(drop!.y + Math.min(drop!.height, 80)).toBeLessThanOrEqual(800);
      let violations = await seriousAccessibilityViolations(page);
      expect(formatViolations(violations, `new package dialog (${theme})`)).toBe(`new package dialog (${theme}): no serious or critical violations`);

      // With files: compact rows, one menu button each; the open menu is screenshotted and checked too.
      await dialog.getByTestId('new-package-files-input').setInputFiles([
        { name: 'game.x86_64', mimeType: 'application/octet-stream', buffer: Buffer.from('ELF') },
        { name: 'README.txt', mimeType: 'text/plain', buffer: Buffer.from('Read me') },
        { name: 'data.pak', mimeType: 'application/octet-stream', buffer: Buffer.alloc(4096) },
      ]);
      const row = dialog.locator('tr[data-path="game.x86_64"]');
      await row.waitFor();
      expect(await row.getByRole('button').count()).toBe(1);
      await row.getByRole('button', { name: en('row_menu_label', { name: 'game.x86_64' }), exact: true }).click();
      await page.getByRole('menu').waitFor();
      await page.screenshot({ path: join(artifacts, `new-package-dialog-menu-1280-${theme}-en.png`) });
      violations = await seriousAccessibilityViolations(page);
      expect(formatViolations(violations, `row menu (${theme})`)).toBe(`row menu (${theme}): no serious or critical violations`);
    } finally {
      await context.close();
    }
  }, 60_000);
}
