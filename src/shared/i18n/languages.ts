/**
 * The languages of the interface: one row per locale of project.inlang/settings.json (a unit test keeps
 * the two in step). This typed table is the "dictionary header" of spec §3 (languageName, dir,
 * fallback): keeping it in code rather than as special keys in locales/*.json lets the language
 * switcher list every language without loading any messages, and keeps the message files pure text.
 *
 * `fallback` is the language whose text is shown when a message is missing. Paraglide derives the same
 * chain at compile time from the locale codes (pt-BR → pt → en, everything else → en); a unit test
 * checks that this table agrees with it. zh-Hant falls back to en rather than zh-Hans: mixing the two
 * scripts on one screen reads as broken, and both tables are kept complete anyway.
 */
export type TextDirection = 'ltr' | 'rtl';

export const languageCodes = ['en', 'ar', 'de', 'es', 'fr', 'ja', 'ko', 'pl', 'pt', 'pt-BR', 'ru', 'tr', 'zh-Hans', 'zh-Hant'] as const;

export type LanguageCode = (typeof languageCodes)[number];

export type Language = {
  code: LanguageCode;
  /** The language's name in that language, for the switcher. */
  languageName: string;
  dir: TextDirection;
  /** Where missing messages come from; null for the base language (en). */
  fallback: LanguageCode | null;
};

export const baseLanguage: LanguageCode = 'en';

/** In the order the language switcher shows them: by code, as spec §1 lists them, Arabic added. */
export const languages: readonly Language[] = [
  { code: 'ar', languageName: 'العربية', dir: 'rtl', fallback: 'en' },
  { code: 'de', languageName: 'Deutsch', dir: 'ltr', fallback: 'en' },
  { code: 'en', languageName: 'English', dir: 'ltr', fallback: null },
  { code: 'es', languageName: 'Español', dir: 'ltr', fallback: 'en' },
  { code: 'fr', languageName: 'Français', dir: 'ltr', fallback: 'en' },
  { code: 'ja', languageName: '日本語', dir: 'ltr', fallback: 'en' },
  { code: 'ko', languageName: '한국어', dir: 'ltr', fallback: 'en' },
  { code: 'pl', languageName: 'Polski', dir: 'ltr', fallback: 'en' },
  { code: 'pt', languageName: 'Português', dir: 'ltr', fallback: 'en' },
  { code: 'pt-BR', languageName: 'Português (Brasil)', dir: 'ltr', fallback: 'pt' },
  { code: 'ru', languageName: 'Русский', dir: 'ltr', fallback: 'en' },
  { code: 'tr', languageName: 'Türkçe', dir: 'ltr', fallback: 'en' },
  { code: 'zh-Hans', languageName: '简体中文', dir: 'ltr', fallback: 'en' },
  { code: 'zh-Hant', languageName: '繁體中文', dir: 'ltr', fallback: 'en' },
];

const byLowerCode = new Map(languages.map((language) => [language.code.toLowerCase(), language]));

/** The language with this code (case-insensitive, '_' accepted for '-'), or undefined. */
export function findLanguage(code: string | null | undefined): Language | undefined {
  if (!code) return undefined;
  return byLowerCode.get(code.trim().replace(/_/g, '-').toLowerCase());
}

/** The language with this code; the base language for an unknown code. */
export function getLanguageInfo(code: LanguageCode): Language {
  return findLanguage(code) ?? (findLanguage(baseLanguage) as Language);
}

/** The chain of languages whose text may show for `code`, e.g. pt-BR → pt → en. */
export function getFallbackChain(code: LanguageCode): LanguageCode[] {
  const chain: LanguageCode[] = [];
  for (let current: Language | undefined = getLanguageInfo(code); current; current = current.fallback ? findLanguage(current.fallback) : undefined) {
    if (chain.includes(current.code)) break;
    chain.push(current.code);
  }
  return chain;
}
