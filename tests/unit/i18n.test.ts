/**
 * The translation check of CI (src/tools/i18n-check.ts) plus the runtime language switch against the
 * compiled paraglide output. The compile step is skipped when its inputs did not change.
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkCompiledOutput, checkLocales, findUnusedMessages, extractParams, glossaryProblems, hasLatinWord, isSentence } from '../../src/tools/i18n-check.ts';
import { compileMessages, projectPath } from '../../src/tools/i18n-compile.ts';
import { languageCodes } from '../../src/shared/i18n/languages.ts';

beforeAll(async () => {
  await compileMessages();
}, 180_000);

describe('i18n check', () => {
  test('every locale has exactly the keys and params of en.json, translated', () => {
    expect(checkLocales()).toEqual([]);
  });

  test('every message is imported by some client file (none is dead weight)', () => {
    expect(findUnusedMessages()).toEqual([]);
  });

  test('the compiled output holds every message in every language', async () => {
    expect(await checkCompiledOutput()).toEqual([]);
  });

  test('the plugin comes from node_modules, never a URL', () => {
    const settings = readFileSync(join(projectPath, 'settings.json'), 'utf8');
    expect(settings).not.toMatch(/https?:\/\/(?!inlang\.com\/schema)/);
    expect(settings).toContain('./node_modules/@inlang/plugin-message-format/dist/index.js');
  });

  test('German says Store for the store, never Shop (issue 29)', () => {
    expect(glossaryProblems('de', 'nav_store', 'Store')).toEqual([]);
    expect(glossaryProblems('de', 'nav_store', 'Shop')).toEqual(['de: nav_store says "Shop" where this language says "Store": "Shop"']);
    expect(glossaryProblems('de', 'x', 'auf den Shop-Seiten')).toHaveLength(1);
    // Only German has this rule: other languages may say shop.
    expect(glossaryProblems('en', 'x', 'Shop')).toEqual([]);
    expect(checkLocales().filter((problem) => problem.includes('where this language says'))).toEqual([]);
  });

  test('params and sentence helpers', () => {
    expect(extractParams('Hello {name}, {count} new in {name}')).toEqual(['count', 'name']);
    expect(extractParams('Use \\{literal\\} braces')).toEqual([]);
    expect(isSentence('Hello world')).toBe(true);
    expect(isSentence('{title} - Cartridge')).toBe(false);
    expect(isSentence('OK')).toBe(false);
    expect(isSentence('Documentation')).toBe(false);
    expect(hasLatinWord('Documentation')).toBe(true);
    expect(hasLatinWord('{count} 件')).toBe(false);
    expect(hasLatinWord('API トークン')).toBe(true);
    expect(hasLatinWord('OK')).toBe(false);
  });
});

describe('language switch', () => {
  test('setLanguage stores the code, switches paraglide and <html lang dir>', async () => {
    const stored = new Map<string, string>();
    const html = { lang: '', dir: '' };
    const globals = globalThis as Record<string, unknown>;
    const saved = { localStorage: globals.localStorage, document: globals.document };
    globals.localStorage = {
      getItem: (key: string) => stored.get(key) ?? null,
      setItem: (key: string, value: string) => void stored.set(key, value),
    };
    globals.document = { documentElement: html };
    try {
      const i18n = await import('../../src/client/lib/i18n/store.ts');
      const { getLocale } = await import('../../src/shared/i18n/paraglide/runtime.js');
      const seen: string[] = [];
      const unsubscribe = i18n.subscribeLanguage((code) => seen.push(code));
      for (const code of languageCodes) {
        expect(i18n.setLanguage(code)).toBe(true);
        expect(stored.get('lang')).toBe(code);
        expect(getLocale()).toBe(code);
        expect(i18n.getLanguage()).toBe(code);
        expect(html).toEqual({ lang: code, dir: code === 'ar' ? 'rtl' : 'ltr' });
      }
      expect(i18n.setLanguage('xx')).toBe(false);
      expect(stored.get('lang')).toBe(languageCodes.at(-1));
      stored.set('lang', 'de');
      expect(i18n.initLanguage()).toBe('de');
      expect(getLocale()).toBe('de');
      unsubscribe();
      expect(seen.length).toBeGreaterThanOrEqual(languageCodes.length - 1);
    } finally {
      globals.localStorage = saved.localStorage;
      globals.document = saved.document;
    }
  });
});

describe('compile guard', () => {
  test('an up-to-date output is not compiled again, and nothing is told', async () => {
    let told = 0;
    const result = await compileMessages({ onCompile: () => (told += 1) });
    expect(result.skipped).toBe(true);
    expect(told).toBe(0);
  });

  test('a wrong plugin path fails the compile instead of emitting nothing', async () => {
    const { mkdtempSync, mkdirSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const root = mkdtempSync(join(tmpdir(), 'cartridge-i18n-'));
    try {
      mkdirSync(join(root, 'project.inlang'));
      writeFileSync(
        join(root, 'project.inlang', 'settings.json'),
        JSON.stringify({
          baseLocale: 'en',
          locales: ['en', 'de'],
          modules: ['./node_modules/@inlang/plugin-message-format/dist/missing.js'],
          'plugin.inlang.messageFormat': { pathPattern: './locales/{locale}.json' },
        }),
      );
      mkdirSync(join(root, 'locales'));
      writeFileSync(join(root, 'locales', 'en.json'), JSON.stringify({ hello: 'Hello' }));
      writeFileSync(join(root, 'locales', 'de.json'), JSON.stringify({ hello: 'Hallo' }));
      const paths = { project: join(root, 'project.inlang'), locales: join(root, 'locales'), outdir: join(root, 'out') };
      let told = 0;
      await expect(compileMessages({ paths, onCompile: () => (told += 1) })).rejects.toThrow(/compiled 0 messages/);
      // A compile that runs is told before it starts (`npm start`'s --quiet prestart says what the wait is).
      expect(told).toBe(1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
