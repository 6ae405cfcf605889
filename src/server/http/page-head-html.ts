import { jsonLdText, type PageMeta } from '../../shared/store/page-meta.ts';
import { escapeAttribute, escapeHtml } from './html-escape.ts';

/**
 * What the app shell's head says on one page (client-assets.ts puts it in place of the shell's
 * `<title>`): the `<html lang dir>` of its language and the head's markup, `<title>` first.
 */
export type PageHead = { lang: string; dir: 'ltr' | 'rtl'; head: string };

/** Only a title (every page without a description of its own: the generic shell). */
export function titleOnlyHead(title: string): string {
  return `<title>${escapeHtml(title)}</title>`;
}

const meta = (attribute: 'name' | 'property', key: string, value: string) => `<meta ${attribute}="${key}" content="${escapeAttribute(value)}" />`;

/**
 * The head of a public page: title, description, canonical and language alternates, Open Graph and
 * Twitter card tags and, when given, the JSON-LD (data: browsers never run it, so the page's CSP,
 * which hashes only the shell's own inline script, needs no entry for it).
 */
export function renderPageHead(page: PageMeta): string {
  const lines = [
    `<title>${escapeHtml(page.title)}</title>`,
    meta('name', 'description', page.description),
    `<link rel="canonical" href="${escapeAttribute(page.canonical)}" />`,
    ...page.alternates.map((alternate) => `<link rel="alternate" hreflang="${escapeAttribute(alternate.hreflang)}" href="${escapeAttribute(alternate.href)}" />`),
    meta('property', 'og:type', 'website'),
    meta('property', 'og:site_name', page.siteName),
    meta('property', 'og:title', page.shareTitle),
    meta('property', 'og:description', page.description),
    meta('property', 'og:url', page.canonical),
    meta('property', 'og:locale', page.locale),
  ];
  if (page.image) {
    lines.push(
      meta('property', 'og:image', page.image.url),
      meta('property', 'og:image:width', String(page.image.width)),
      meta('property', 'og:image:height', String(page.image.height)),
      meta('property', 'og:image:alt', page.image.alt),
    );
  }
  lines.push(
    meta('name', 'twitter:card', page.image ? 'summary_large_image' : 'summary'),
    meta('name', 'twitter:title', page.shareTitle),
    meta('name', 'twitter:description', page.description),
  );
  if (page.image) lines.push(meta('name', 'twitter:image', page.image.url), meta('name', 'twitter:image:alt', page.image.alt));
  if (page.jsonLd) lines.push(`<script type="application/ld+json">${jsonLdText(page.jsonLd)}</script>`);
  return lines.join('\n    ');
}
