import { describe, expect, test } from 'bun:test';
import { detectLanguage, matchBrowserLanguage } from '../../src/shared/i18n/detect.ts';
import { findLanguage, getFallbackChain, languageCodes, languages } from '../../src/shared/i18n/languages.ts';

describe('detectLanguage', () => {
  const cases: Array<[string, Parameters<typeof detectLanguage>[0], string]> = [
    ['nothing at all', {}, 'en'],
    ['empty lists', { stored: null, browserLanguages: [], browserLanguage: '' }, 'en'],
    ['stored wins over the browser', { stored: 'fr', browserLanguages: ['de-DE', 'de'] }, 'fr'],
    ['stored region code', { stored: 'pt-BR', browserLanguages: ['en-US'] }, 'pt-BR'],
    ['stored in other case', { stored: 'zh-hant', browserLanguages: ['en'] }, 'zh-Hant'],
    ['stored Arabic', { stored: 'ar', browserLanguages: ['en'] }, 'ar'],
    ['invalid stored value is ignored', { stored: 'klingon', browserLanguages: ['es-ES'] }, 'es'],
    ['empty stored value is ignored', { stored: '', browserLanguages: ['ja'] }, 'ja'],
    ['stored garbage, no browser', { stored: '{"x":1}' }, 'en'],
    ['exact 2-letter', { browserLanguages: ['de'] }, 'de'],
    ['prefix of a region', { browserLanguages: ['de-AT'] }, 'de'],
    ['pt-BR exact', { browserLanguages: ['pt-BR', 'pt', 'en'] }, 'pt-BR'],
    ['pt-br lower case', { browserLanguages: ['pt-br'] }, 'pt-BR'],
    ['pt_BR underscore', { browserLanguages: ['pt_BR'] }, 'pt-BR'],
    ['pt-PT is European Portuguese', { browserLanguages: ['pt-PT'] }, 'pt'],
    ['pt-AO falls to pt', { browserLanguages: ['pt-AO'] }, 'pt'],
    ['bare pt', { browserLanguages: ['pt'] }, 'pt'],
    ['zh-TW → zh-Hant', { browserLanguages: ['zh-TW'] }, 'zh-Hant'],
    ['zh-HK → zh-Hant', { browserLanguages: ['zh-HK', 'en'] }, 'zh-Hant'],
    ['zh-MO → zh-Hant', { browserLanguages: ['zh-MO'] }, 'zh-Hant'],
    ['zh-CN → zh-Hans', { browserLanguages: ['zh-CN', 'zh'] }, 'zh-Hans'],
    ['zh-SG → zh-Hans', { browserLanguages: ['zh-SG'] }, 'zh-Hans'],
    ['bare zh → zh-Hans', { browserLanguages: ['zh'] }, 'zh-Hans'],
    ['zh-Hant exact', { browserLanguages: ['zh-Hant'] }, 'zh-Hant'],
    ['zh-Hans exact', { browserLanguages: ['zh-Hans'] }, 'zh-Hans'],
    ['script subtag beats region: zh-Hant-CN', { browserLanguages: ['zh-Hant-CN'] }, 'zh-Hant'],
    ['script subtag: zh-Hans-HK', { browserLanguages: ['zh-Hans-HK'] }, 'zh-Hans'],
    ['zh-Hant-TW', { browserLanguages: ['zh-Hant-TW'] }, 'zh-Hant'],
    ['unknown zh region → zh-Hans', { browserLanguages: ['zh-XX'] }, 'zh-Hans'],
    ['ZH-TW upper case', { browserLanguages: ['ZH-TW'] }, 'zh-Hant'],
    ['ja-JP', { browserLanguages: ['ja-JP', 'en-US'] }, 'ja'],
    ['ko-KR', { browserLanguages: ['ko-KR'] }, 'ko'],
    ['ru-RU', { browserLanguages: ['ru-RU', 'ru'] }, 'ru'],
    ['uk then ru: unsupported first is skipped', { browserLanguages: ['uk-UA', 'ru'] }, 'ru'],
    ['tr-TR', { browserLanguages: ['tr-TR'] }, 'tr'],
    ['pl-PL', { browserLanguages: ['pl-PL'] }, 'pl'],
    ['fr-CA', { browserLanguages: ['fr-CA', 'en-CA'] }, 'fr'],
    ['es-419', { browserLanguages: ['es-419'] }, 'es'],
    ['es-MX', { browserLanguages: ['es-MX', 'es'] }, 'es'],
    ['ar-EG', { browserLanguages: ['ar-EG'] }, 'ar'],
    ['ar-SA with English second', { browserLanguages: ['ar-SA', 'en'] }, 'ar'],
    ['en-GB keeps English before a later exact match', { browserLanguages: ['en-GB', 'de'] }, 'en'],
    ['preference order is respected', { browserLanguages: ['ko', 'ja'] }, 'ko'],
    ['all unsupported → en', { browserLanguages: ['he-IL', 'nl', 'sv-SE'] }, 'en'],
    ['unsupported then supported', { browserLanguages: ['nl-NL', 'nl', 'de-DE'] }, 'de'],
    ['wildcard is skipped', { browserLanguages: ['*', 'es'] }, 'es'],
    ['blank entries are skipped', { browserLanguages: ['', '  ', 'tr'] }, 'tr'],
    ['navigator.language when languages is empty', { browserLanguages: [], browserLanguage: 'pl-PL' }, 'pl'],
    ['navigator.language alone', { browserLanguage: 'zh-TW' }, 'zh-Hant'],
    ['navigator.languages wins over navigator.language', { browserLanguages: ['fr'], browserLanguage: 'de' }, 'fr'],
    ['a 3-letter code is not a prefix match', { browserLanguages: ['deu', 'en'] }, 'en'],
    ['private-use tag', { browserLanguages: ['x-pig-latin'] }, 'en'],
    ['surrounding spaces', { browserLanguages: [' ja '] }, 'ja'],
  ];
  for (const [name, input, expected] of cases) {
    test(name, () => {
      expect(detectLanguage(input)).toBe(expected as never);
    });
  }
});

describe('matchBrowserLanguage', () => {
  test('each of our codes matches itself', () => {
    for (const code of languageCodes) expect(matchBrowserLanguage(code)).toBe(code);
  });
  test('unknown tags give undefined', () => {
    expect(matchBrowserLanguage('nl-BE')).toBeUndefined();
    expect(matchBrowserLanguage('')).toBeUndefined();
    expect(matchBrowserLanguage('*')).toBeUndefined();
  });
});

describe('language table', () => {
  test('one row per code, names in their own language, Arabic right-to-left', () => {
    expect(languages.map((row) => row.code).sort()).toEqual([...languageCodes].sort());
    expect(new Set(languages.map((row) => row.languageName)).size).toBe(languages.length);
    for (const row of languages) expect(row.dir).toBe(row.code === 'ar' ? 'rtl' : 'ltr');
    expect(findLanguage('de')?.languageName).toBe('Deutsch');
    expect(findLanguage('ja')?.languageName).toBe('日本語');
  });

  test('fallbacks end at en and follow the BCP 47 parent (as paraglide compiles them)', () => {
    for (const row of languages) {
      if (row.code === 'en') {
        expect(row.fallback).toBeNull();
        continue;
      }
      const parent = row.code.split('-').slice(0, -1).join('-');
      const expected = parent && (languageCodes as readonly string[]).includes(parent) ? parent : 'en';
      expect(row.fallback as string | null).toBe(expected);
      expect(getFallbackChain(row.code).at(-1)).toBe('en');
    }
    expect(getFallbackChain('pt-BR')).toEqual(['pt-BR', 'pt', 'en']);
    expect(getFallbackChain('zh-Hant')).toEqual(['zh-Hant', 'en']);
    expect(getFallbackChain('en')).toEqual(['en']);
  });

  test('findLanguage ignores case and underscores', () => {
    expect(findLanguage('PT_br')?.code).toBe('pt-BR');
    expect(findLanguage('xx')).toBeUndefined();
    expect(findLanguage(null)).toBeUndefined();
  });
});
