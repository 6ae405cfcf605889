import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { languages } from '../../src/shared/i18n/languages.ts';
import { en, languageSelect, message, startE2E, themeSelect, visit, type E2E } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';

/**
 * Issue 29: the header's switchers are compact, so a long display name keeps its room. Closed, the
 * language switcher shows the code and the theme switcher the choice's icon; the native select over
 * each stays the control: its accessible name, the list of full names, the keyboard, the focus ring.
 */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

type Switcher = 'language' | 'theme';

/** The face under a switcher's select: the language one lists pt-BR, the theme one system. */
function face(page: Page, switcher: Switcher) {
  return page.locator(`header .switcher:has(option[value="${switcher === 'language' ? 'pt-BR' : 'system'}"]) .switcher_face`);
}

/** The face's focus ring: an outline drawn while its select has keyboard focus. */
async function ringOf(page: Page, switcher: Switcher): Promise<string> {
  return face(page, switcher).evaluate((element) => getComputedStyle(element).outlineStyle);
}

test('the language switcher shows the code; its name and list say the languages in full; the keyboard switches', async () => {
  const { page, context } = await e2e.open({ storage: { lang: 'ru' } });
  try {
    await visit(page, '/', 'page_home');
    const select = languageSelect(page);
    expect(((await face(page, 'language').textContent()) ?? '').trim()).toBe('ru');
    expect(await face(page, 'language').getAttribute('aria-hidden')).toBe('true');
    const name = message('ru', 'language_current').replace('{language}', 'Русский');
    expect(name).toBe('Язык: Русский');
    expect(await page.getByRole('combobox', { name, exact: true }).count()).toBe(1);
    expect(await select.getAttribute('title')).toBe(name);
    const options = await select.locator('option').evaluateAll((all) => all.map((option) => option.textContent));
    expect(options).toEqual(languages.map((language) => `${language.code} · ${language.languageName}`));
    // The select covers its face: a click on the face reaches the select.
    const box = (await face(page, 'language').boundingBox())!;
    const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.tagName, [box.x + box.width / 2, box.y + box.height / 2]);
    expect(hit).toBe('SELECT');

    // Keyboard: Tab reaches it from the last link of the navigation, the ring shows on the face.
    expect(await ringOf(page, 'language')).toBe('none');
    await page.locator('header nav a').last().focus();
    await page.keyboard.press('Tab');
    expect(await select.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await ringOf(page, 'language')).toBe('solid');
    // The next language down the list (tr after ru): the page speaks it, focus stays on the switcher.
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => document.documentElement.lang === 'tr');
    await page.locator('main h1', { hasText: message('tr', 'home_heading') }).waitFor();
    expect(((await face(page, 'language').textContent()) ?? '').trim()).toBe('tr');
    expect(await page.getByRole('combobox', { name: message('tr', 'language_current').replace('{language}', 'Türkçe'), exact: true }).count()).toBe(1);
    expect(await select.evaluate((element) => element === document.activeElement)).toBe(true);
  } finally {
    await context.close();
  }
}, 30_000);

test('the theme switcher shows the choice as an icon, is named Theme, and switches by keyboard', async () => {
  const { page, context } = await e2e.open({ colorScheme: 'light' });
  try {
    await visit(page, '/', 'page_home');
    const select = themeSelect(page);
    const icon = () => face(page, 'theme').locator('svg[data-theme-icon]').getAttribute('data-theme-icon');
    expect(await icon()).toBe('system');
    expect(await page.getByRole('combobox', { name: en('theme_label'), exact: true }).count()).toBe(1);
    expect(await select.locator('option').evaluateAll((all) => all.map((option) => option.textContent))).toEqual([en('theme_light'), en('theme_dark'), en('theme_system')]);
    await select.focus();
    await page.keyboard.press('ArrowUp');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    expect(await icon()).toBe('dark');
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('dark');
    await page.keyboard.press('ArrowUp');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    expect(await icon()).toBe('light');
    // Both themes: the header with its compact switchers is axe clean.
    for (const theme of ['light', 'dark'] as const) {
      await select.selectOption(theme);
      await page.waitForFunction((expected) => document.documentElement.dataset.theme === expected, theme);
      const violations = await seriousAccessibilityViolations(page);
      expect(formatViolations(violations, theme)).toBe(`${theme}: no serious or critical violations`);
    }
  } finally {
    await context.close();
  }
}, 30_000);
