import { baseLanguage, findLanguage, type LanguageCode } from './languages.ts';

/** Browser tags whose language is written in one Chinese script, by region or by script subtag. */
const chineseScripts: Record<string, LanguageCode> = {
  'zh-tw': 'zh-Hant',
  'zh-hk': 'zh-Hant',
  'zh-mo': 'zh-Hant',
  'zh-hant': 'zh-Hant',
  'zh-cn': 'zh-Hans',
  'zh-sg': 'zh-Hans',
  'zh-my': 'zh-Hans',
  'zh-hans': 'zh-Hans',
  // Bare "zh" is overwhelmingly mainland usage.
  zh: 'zh-Hans',
};

/**
 * The language for one browser tag such as 'pt-BR', 'zh-TW', 'de-AT', or undefined:
 * 1. the exact code, region included (pt-BR, zh-Hant; case and '_' do not matter);
 * 2. a Chinese tag mapped to its script (zh-TW/HK/MO → zh-Hant, zh-CN/SG/MY and zh → zh-Hans,
 *    script subtags such as zh-Hant-HK win over the region);
 * 3. the 2-letter prefix (de-AT → de, pt-PT → pt, ar-EG → ar).
 */
export function matchBrowserLanguage(tag: string): LanguageCode | undefined {
  const normalized = tag.trim().replace(/_/g, '-').toLowerCase();
  if (!normalized || normalized === '*') return undefined;
  const exact = findLanguage(normalized);
  if (exact) return exact.code;
  const subtags = normalized.split('-');
  if (subtags[0] === 'zh') {
    const script = subtags.find((subtag) => subtag === 'hant' || subtag === 'hans');
    if (script) return chineseScripts[`zh-${script}`];
    return chineseScripts[`zh-${subtags[1] ?? ''}`] ?? chineseScripts.zh;
  }
  return findLanguage(subtags[0])?.code;
}

export type DetectionInput = {
  /**
   * The language the address asks for (`?lang=de`: the hreflang alternates of public pages, issue 21);
   * it wins over the stored one for this page, without being stored.
   */
  requested?: string | null;
  /** The value stored under localStorage `lang`, if any. */
  stored?: string | null;
  /** navigator.languages, most preferred first. */
  browserLanguages?: readonly string[] | null;
  /** navigator.language, used when navigator.languages is empty. */
  browserLanguage?: string | null;
};

/**
 * The language the address asks for (`?lang=`) if it is one of ours; then spec §4: the stored language
 * if it is one of ours, else the first browser language we have (each tried exactly, then by its
 * 2-letter prefix, before the next, less preferred one), else en.
 * ['en-GB', 'de'] gives en: the user prefers English, even though only 'de' is an exact match.
 */
export function detectLanguage(input: DetectionInput): LanguageCode {
  const requested = input.requested ? findLanguage(input.requested) : undefined;
  if (requested) return requested.code;
  const stored = input.stored ? findLanguage(input.stored) : undefined;
  if (stored) return stored.code;
  const preferred = input.browserLanguages?.length ? input.browserLanguages : input.browserLanguage ? [input.browserLanguage] : [];
  for (const tag of preferred) {
    if (typeof tag !== 'string') continue;
    const match = matchBrowserLanguage(tag);
    if (match) return match;
  }
  return baseLanguage;
}
