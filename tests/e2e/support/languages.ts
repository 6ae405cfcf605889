import { expect } from 'bun:test';
import type { Page } from 'playwright-core';
import { getLanguageInfo, type LanguageCode } from '../../../src/shared/i18n/languages.ts';
import { en, languageSelect, message, visit, type E2E } from './app.ts';

/** What the visitor's home shows that must be translated. */
async function homeTexts(page: Page) {
  const main = page.locator('main#content');
  return {
    heading: ((await main.locator('h1').textContent()) ?? '').trim(),
    lead: ((await main.locator('p.lead').textContent()) ?? '').trim(),
    signIn: ((await page.locator('header a[href="/login"]').textContent()) ?? '').trim(),
    footerDocs: ((await page.locator('footer a[href^="/docs/"]').textContent()) ?? '').trim(),
    mainText: (await main.innerText()).trim(),
  };
}

async function htmlLangDir(page: Page) {
  return page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir, stored: localStorage.getItem('lang') }));
}

/**
 * Switches the visitor's home to `code` with the switcher and checks: the text is that language's
 * (and not English unless code is en), `<html lang dir>` follow, the switcher shows the code, the
 * choice is stored under `lang` and survives a reload.
 */
export async function checkLanguageSwitch(e2e: E2E, code: string, dir: 'ltr' | 'rtl' = 'ltr'): Promise<void> {
  const { page, context } = await e2e.open();
  try {
    await visit(page, '/', 'page_home');
    const english = await homeTexts(page);
    expect(english.heading).toBe(en('home_heading'));
    const select = languageSelect(page);
    expect(await select.inputValue()).toBe('en');

    // For English, leave it first so switching back has something to change.
    if (code === 'en') {
      await select.selectOption('de');
      await page.locator('main h1', { hasText: message('de', 'home_heading') }).waitFor({ timeout: 5_000 });
    }
    await select.selectOption(code);
    await page.locator('main h1', { hasText: message(code, 'home_heading') }).waitFor({ timeout: 5_000 });

    const check = async (when: string) => {
      const shown = await homeTexts(page);
      const expected = {
        heading: message(code, 'home_heading'),
        lead: message(code, 'home_description'),
        signIn: message(code, 'nav_sign_in'),
        footerDocs: message(code, 'footer_docs'),
      };
      expect({ when, ...pick(shown) }).toEqual({ when, ...expected });
      if (code === 'en') {
        expect(shown.mainText).toBe(english.mainText);
      } else {
        // Real translations, not English copies.
        expect(shown.heading).not.toBe(english.heading);
        expect(shown.lead).not.toBe(english.lead);
        expect(shown.mainText).not.toBe(english.mainText);
      }
      expect({ when, ...(await htmlLangDir(page)) }).toEqual({ when, lang: code, dir, stored: code });
      // The switcher shows the current language code.
      expect(await select.inputValue()).toBe(code);
      const selectedText = await select.evaluate((element) => (element as HTMLSelectElement).selectedOptions[0]?.textContent ?? '');
      expect(selectedText).toContain(code);
      // Closed, it is compact (the code alone); its name says the language in full.
      expect(((await page.locator('header .switcher:has(option[value="pt-BR"]) .switcher_face').textContent()) ?? '').trim()).toBe(code);
      const name = message(code, 'language_current').replace('{language}', getLanguageInfo(code as LanguageCode).languageName);
      expect(await page.getByRole('combobox', { name, exact: true }).count()).toBe(1);
      expect(await page.title()).toBe(`${message(code, 'home_title')} - Cartridge`);
      // Spec §2: the footer links to the docs in the current language.
      expect(await page.locator('footer a[href^="/docs/"]').getAttribute('href')).toBe(`/docs/${code}/`);
    };
    await check('after switching');
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.locator('main#content.page_home').waitFor({ timeout: 10_000 });
    await check('after reload');
  } finally {
    await context.close();
  }
}

function pick(texts: Awaited<ReturnType<typeof homeTexts>>) {
  return { heading: texts.heading, lead: texts.lead, signIn: texts.signIn, footerDocs: texts.footerDocs };
}
