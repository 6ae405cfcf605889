import { afterAll, beforeAll, expect, test } from 'bun:test';
import { message, startE2E, visit, type E2E } from './support/app.ts';
import { checkLanguageSwitch } from './support/languages.ts';

/** Spec §1, §4: the switcher changes the language (second half of the 13), and the browser's language is the default. */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

for (const code of ['pt', 'pt-BR', 'ru', 'tr', 'zh-Hans', 'zh-Hant']) {
  test(`switch to ${code}: text, <html lang dir>, stored under lang, survives a reload`, () => checkLanguageSwitch(e2e, code), 30_000);
}

test('the default language comes from the browser: exact code, then its 2-letter prefix, then en', async () => {
  const cases: [browserLocale: string, expected: string][] = [
    ['de-DE', 'de'],
    ['pt-BR', 'pt-BR'],
    ['es-MX', 'es'],
    ['nl-NL', 'en'],
  ];
  for (const [locale, expected] of cases) {
    const { page, context } = await e2e.open({ locale });
    try {
      await visit(page, '/', 'page_home');
      const shown = await page.evaluate(() => ({
        languages: navigator.languages.join(','),
        lang: document.documentElement.lang,
        heading: document.querySelector('main h1')?.textContent,
        stored: localStorage.getItem('lang'),
      }));
      expect({ locale, ...shown }).toEqual({
        locale,
        languages: shown.languages,
        lang: expected,
        heading: message(expected, 'home_heading'),
        // Detected, not chosen: nothing is stored until the user picks a language.
        stored: null,
      });
    } finally {
      await context.close();
    }
  }
}, 30_000);
