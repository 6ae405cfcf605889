/**
 * What a public page says about itself to crawlers and link previews (issue 21): its title, a plain-text
 * description, canonical URL with one alternate per language, an Open Graph / Twitter card image and
 * schema.org JSON-LD. Built by the same functions on the server (rendered into the HTML head of the app
 * shell: domains/store/store-page-head.ts, from the cached store page) and on the client (applied to
 * document.head on navigation: client/lib/page-meta.ts), so both say the same. Words in the page's
 * language come in as arguments (paraglide messages on either side); no I/O here. Store pages' own
 * parts (markdown summary, game data) are in store-meta.ts, which loads the markdown lexer.
 */

type PageMetaImage = { url: string; width: number; height: number; alt: string };

export type PageAlternate = { hreflang: string; href: string };

export type PageMeta = {
  /** The document's title: '{title} - {appName}' (spec §2). */
  title: string;
  /** The page's own title, for og:title and twitter:title (the app's name is og:site_name). */
  shareTitle: string;
  description: string;
  /** Absolute. */
  canonical: string;
  /** One per language (`?lang=`), then x-default (the address without it). */
  alternates: PageAlternate[];
  siteName: string;
  /** og:locale of the page's language ('en_US'). */
  locale: string;
  image?: PageMetaImage;
  /** schema.org data, serialised into a `<script type="application/ld+json">`. */
  jsonLd?: Record<string, unknown>;
};

export type PageMetaContext = {
  /** Where the app is reached: PUBLIC_URL, else the request's (the page's) origin; no trailing slash. */
  baseUrl: string;
  appName: string;
  /** The language the page speaks. */
  language: string;
  /** Whether the address names it (`?lang=`): the canonical URL then keeps it. */
  languageInUrl: boolean;
  /** Every language of the interface, each an alternate. */
  languages: readonly string[];
};

/** Spec §2: page title '{title} - {app name}'. */
export function documentTitle(title: string, appName: string): string {
  return `${title} - ${appName}`;
}

/** The address of `path` in `language` (undefined: the address without a language, x-default). */
export function pageUrl(baseUrl: string, path: string, language?: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}${language ? `?lang=${encodeURIComponent(language)}` : ''}`;
}

/** The canonical address and the language alternates of `path`. */
export function pageAddresses(path: string, context: PageMetaContext): { canonical: string; alternates: PageAlternate[] } {
  const alternates = context.languages.map((code) => ({ hreflang: code, href: pageUrl(context.baseUrl, path, code) }));
  alternates.push({ hreflang: 'x-default', href: pageUrl(context.baseUrl, path) });
  return { canonical: pageUrl(context.baseUrl, path, context.languageInUrl ? context.language : undefined), alternates };
}

/** og:locale wants language_TERRITORY: the usual territory of each interface language. */
const ogLocales: Record<string, string> = {
  en: 'en_US',
  ar: 'ar_AR',
  de: 'de_DE',
  es: 'es_ES',
  fr: 'fr_FR',
  ja: 'ja_JP',
  ko: 'ko_KR',
  pl: 'pl_PL',
  pt: 'pt_PT',
  'pt-BR': 'pt_BR',
  ru: 'ru_RU',
  tr: 'tr_TR',
  'zh-Hans': 'zh_CN',
  'zh-Hant': 'zh_TW',
};

export function ogLocaleOf(language: string): string {
  return ogLocales[language] ?? language.replace(/-/g, '_');
}

/** Descriptions are cut here (link previews show 200 to 300 characters; search results fewer). */
export const maxDescriptionLength = 300;

/** A page that is its own title and a fixed description (the store index, home). */
export function simplePageMeta(path: string, title: string, description: string, context: PageMetaContext): PageMeta {
  return {
    title: documentTitle(title, context.appName),
    shareTitle: title,
    description: plainTextLine(description, maxDescriptionLength),
    ...pageAddresses(path, context),
    siteName: context.appName,
    locale: ogLocaleOf(context.language),
  };
}

/**
 * One line: footnote marks removed, control characters and runs of white space made one space, trimmed,
 * cut at a word boundary (whole grapheme clusters, never half an emoji) to maxLength with '…'.
 */
export function plainTextLine(text: string, maxLength: number): string {
  const line = text
    .replace(/\s*\[\^[^\]\s]{1,999}\]/g, '')
    .replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, ' ')
    .trim();
  const graphemes = splitGraphemes(line);
  if (graphemes.length <= maxLength) return line;
  let cut = graphemes.slice(0, maxLength - 1).join('');
  const space = cut.lastIndexOf(' ');
  if (space > maxLength / 2) cut = cut.slice(0, space);
  return `${cut.replace(/[\s.,;:!?、。，-]+$/u, '')}…`;
}

function splitGraphemes(text: string): string[] {
  if (typeof Intl !== 'undefined' && 'Segmenter' in Intl) {
    return Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text), (part) => part.segment);
  }
  return Array.from(text);
}

const scriptJsonEscapes: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/**
 * The JSON-LD's text: JSON (the same data to any parser) that can never close its element
 * (`</script>`), open a comment (`<!--`) or end a JavaScript line, so the server may write it into
 * HTML as is; the client writes the same text (textContent) so both heads compare equal.
 */
export function jsonLdText(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => scriptJsonEscapes[char]!);
}
