import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { uploadPackage } from '../support/packages.ts';
import { makeTeam } from '../support/projects.ts';
import { startE2E, themeSelect, visit, type E2E } from './support/app.ts';

/** Spec §4 theme: light, dark, system (follows prefers-color-scheme live), stored under `theme`, no flash. */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

const lightBackground = 'rgb(250, 250, 250)';
const darkBackground = 'rgb(22, 22, 26)';

async function themeState(page: Page) {
  return page.evaluate(() => ({
    theme: document.documentElement.getAttribute('data-theme'),
    stored: localStorage.getItem('theme'),
    background: getComputedStyle(document.body).backgroundColor,
  }));
}

async function waitForTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  await page.waitForFunction((expected) => document.documentElement.getAttribute('data-theme') === expected, theme, { timeout: 5_000 });
}

test('light and dark are stored under theme and survive a reload', async () => {
  const { page, context } = await e2e.open({ colorScheme: 'light' });
  await visit(page, '/', 'page_home');
  // Nothing stored: the default (system) on a light system.
  expect(await themeSelect(page).inputValue()).toBe('system');
  expect(await themeState(page)).toEqual({ theme: 'light', stored: null, background: lightBackground });

  await themeSelect(page).selectOption('dark');
  await waitForTheme(page, 'dark');
  expect(await themeState(page)).toEqual({ theme: 'dark', stored: 'dark', background: darkBackground });
  await page.reload({ waitUntil: 'domcontentloaded' });
  await page.locator('main#content.page_home').waitFor();
  expect(await themeState(page)).toEqual({ theme: 'dark', stored: 'dark', background: darkBackground });
  expect(await themeSelect(page).inputValue()).toBe('dark');

  // Light on a dark system stays light.
  await page.emulateMedia({ colorScheme: 'dark' });
  await themeSelect(page).selectOption('light');
  await waitForTheme(page, 'light');
  await page.reload({ waitUntil: 'domcontentloaded' });
  await page.locator('main#content.page_home').waitFor();
  expect(await themeState(page)).toEqual({ theme: 'light', stored: 'light', background: lightBackground });
  expect(await themeSelect(page).inputValue()).toBe('light');
  await context.close();
}, 30_000);

test('system follows the colour scheme live, and after a reload', async () => {
  const { page, context } = await e2e.open({ colorScheme: 'light', storage: { theme: 'dark' } });
  await visit(page, '/', 'page_home');
  expect((await themeState(page)).theme).toBe('dark');
  await themeSelect(page).selectOption('system');
  await waitForTheme(page, 'light');
  expect(await themeState(page)).toEqual({ theme: 'light', stored: 'system', background: lightBackground });

  await page.emulateMedia({ colorScheme: 'dark' });
  await waitForTheme(page, 'dark');
  expect(await themeState(page)).toEqual({ theme: 'dark', stored: 'system', background: darkBackground });
  await page.emulateMedia({ colorScheme: 'light' });
  await waitForTheme(page, 'light');

  await page.emulateMedia({ colorScheme: 'dark' });
  await page.reload({ waitUntil: 'domcontentloaded' });
  await page.locator('main#content.page_home').waitFor();
  expect(await themeState(page)).toEqual({ theme: 'dark', stored: 'system', background: darkBackground });
  expect(await themeSelect(page).inputValue()).toBe('system');
  await context.close();
}, 30_000);

test('an unknown stored theme falls back to the default (system)', async () => {
  const { page, context } = await e2e.open({ colorScheme: 'dark', storage: { theme: 'purple' } });
  await visit(page, '/', 'page_home');
  expect(await themeSelect(page).inputValue()).toBe('system');
  expect((await themeState(page)).theme).toBe('dark');
  await context.close();
}, 30_000);

/** What a button looks like, and the contrast of its label (WCAG relative luminance). */
const buttonLook = (button: Element) => {
  const style = getComputedStyle(button);
  const rgb = (color: string) => (color.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
  const luminance = (color: string) => {
    const [r, g, b] = rgb(color).map((value) => {
      const c = value / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [light, dark] = [luminance(style.color), luminance(style.backgroundColor)].sort((a, b) => b - a);
  return { cursor: style.cursor, color: style.color, background: style.backgroundColor, border: style.borderStyle, contrast: (light! + 0.05) / (dark! + 0.05) };
};

for (const theme of ['light', 'dark'] as const) {
  test(`${theme} theme: disabled buttons look disabled, with a readable label (issue 13)`, async () => {
    const team = await makeTeam(e2e.server);
    const pkg = await uploadPackage(e2e.server, team.developer, team.project.id, { 'run.sh': '#!/bin/sh\n' }, { tags: ['os:linux'], entrypoint: ['run.sh'], title: 'Linux build' });
    const { page, context } = await e2e.openSignedIn({ user: team.tester, colorScheme: theme, storage: { theme } });
    await visit(page, `/projects/${team.project.id}/packages/${pkg.id}`, 'page_package');
    const enabled = page.locator('.package_downloads button').last();
    await enabled.waitFor({ timeout: 10_000 });
    const normal = await enabled.evaluate(buttonLook);
    expect(normal.cursor).toBe('pointer');
    for (const action of ['play', 'install', 'launch', 'update', 'cloud_play']) {
      const button = page.locator(`.package_launcher[data-action="${action}"] button`);
      expect(await button.isDisabled()).toBe(true);
      const look = await button.evaluate(buttonLook);
      expect({ action, cursor: look.cursor, border: look.border }).toEqual({ action, cursor: 'not-allowed', border: 'dashed' });
      expect(look.background).not.toBe(normal.background);
      expect(look.color).not.toBe(normal.color);
      expect(look.contrast).toBeGreaterThanOrEqual(4.5);
    }
    await context.close();
  }, 30_000);
}

/**
 * Records the theme attribute and the page background at three early moments: when <body> is
 * inserted by the parser, at the first animation frame (just before the first paint) and at
 * DOMContentLoaded. All must already be the final theme: no flash of the wrong one.
 */
const recordFirstPaint = () => {
  const seen: Record<string, { theme: string | null; background: string | null }> = {};
  (window as unknown as { __firstPaint: typeof seen }).__firstPaint = seen;
  const note = (when: string) => {
    seen[when] ??= {
      theme: document.documentElement.getAttribute('data-theme'),
      background: document.body ? getComputedStyle(document.body).backgroundColor : null,
    };
  };
  new MutationObserver((_, observer) => {
    if (document.body) {
      seen.bodyInserted ??= { theme: document.documentElement.getAttribute('data-theme'), background: null };
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
  requestAnimationFrame(() => note('firstFrame'));
  document.addEventListener('DOMContentLoaded', () => note('domContentLoaded'));
};

for (const [name, options, expected] of [
  ['stored dark on a light system', { colorScheme: 'light' as const, storage: { theme: 'dark' } }, 'dark'],
  ['stored light on a dark system', { colorScheme: 'dark' as const, storage: { theme: 'light' } }, 'light'],
  ['system on a dark system', { colorScheme: 'dark' as const }, 'dark'],
] as const) {
  test(`no flash of the wrong theme: ${name}`, async () => {
    const { page, context } = await e2e.open(options);
    await context.addInitScript(recordFirstPaint);
    await page.goto('/', { waitUntil: 'domcontentloaded' });
    const background = expected === 'dark' ? darkBackground : lightBackground;
    const early = await page.evaluate(() => (window as unknown as { __firstPaint: unknown }).__firstPaint);
    await page.locator('main#content.page_home').waitFor();
    const seen = await page.evaluate(() => (window as unknown as { __firstPaint: unknown }).__firstPaint);
    expect({ early, seen }).toEqual({
      early: { ...(early as object), bodyInserted: { theme: expected, background: null }, domContentLoaded: { theme: expected, background } },
      seen: {
        bodyInserted: { theme: expected, background: null },
        firstFrame: { theme: expected, background },
        domContentLoaded: { theme: expected, background },
      },
    });
    await context.close();
  }, 30_000);
}
