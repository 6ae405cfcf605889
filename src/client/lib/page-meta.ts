import { jsonLdText, type PageMeta } from '../../shared/store/page-meta.ts';

/**
 * The head of the page on screen, kept in step with it while the app navigates (issue 21): the server
 * writes public pages' title, description, canonical URL, language alternates, link-preview tags and
 * JSON-LD into the shell it sends (server/http/page-head-html.ts); once the app moves to another
 * screen they would describe the wrong page, so every screen states its own (or none: then they go).
 * Built by the same functions as the server's (shared/store/page-meta.ts), written in the same order and
 * attribute order, and left untouched when they already say the same (the first screen of a visit).
 */

/** Every head element a page's meta owns. */
const managed = [
  'meta[name="description"]',
  'link[rel="canonical"]',
  'link[rel="alternate"][hreflang]',
  'meta[property^="og:"]',
  'meta[name^="twitter:"]',
  'script[type="application/ld+json"]',
].join(', ');

function element(tag: string, attributes: [string, string][], text?: string): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of attributes) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function elementsOf(meta: PageMeta): HTMLElement[] {
  const named = (name: string, content: string) => element('meta', [['name', name], ['content', content]]);
  const property = (name: string, content: string) => element('meta', [['property', name], ['content', content]]);
  const nodes = [
    named('description', meta.description),
    element('link', [['rel', 'canonical'], ['href', meta.canonical]]),
    ...meta.alternates.map((alternate) => element('link', [['rel', 'alternate'], ['hreflang', alternate.hreflang], ['href', alternate.href]])),
    property('og:type', 'website'),
    property('og:site_name', meta.siteName),
    property('og:title', meta.shareTitle),
    property('og:description', meta.description),
    property('og:url', meta.canonical),
    property('og:locale', meta.locale),
  ];
  if (meta.image) {
    nodes.push(
      property('og:image', meta.image.url),
      property('og:image:width', String(meta.image.width)),
      property('og:image:height', String(meta.image.height)),
      property('og:image:alt', meta.image.alt),
    );
  }
  nodes.push(named('twitter:card', meta.image ? 'summary_large_image' : 'summary'), named('twitter:title', meta.shareTitle), named('twitter:description', meta.description));
  if (meta.image) nodes.push(named('twitter:image', meta.image.url), named('twitter:image:alt', meta.image.alt));
  // Data, never run (no CSP entry needed): the same text the server writes.
  if (meta.jsonLd) nodes.push(element('script', [['type', 'application/ld+json']], jsonLdText(meta.jsonLd)));
  return nodes;
}

/**
 * A public screen still loading the data its meta comes from: the head the server wrote for this very
 * address stays as it is (a crawler that runs script must not catch the page between the two), while a
 * head left by another screen goes, as for a page without meta.
 */
export const META_LOADING = 'loading';
export type ScreenMeta = PageMeta | typeof META_LOADING | undefined;

/** Whether the head's canonical link names the address on screen (the server wrote it for this page). */
function headIsForThisAddress(): boolean {
  const href = document.head.querySelector('link[rel="canonical"]')?.getAttribute('href');
  if (!href) return false;
  try {
    return new URL(href, location.href).pathname === location.pathname;
  } catch {
    return false;
  }
}

/** Sets the document's title and its page meta (removing what a page without meta must not keep). */
export function applyPageMeta(title: string, screenMeta: ScreenMeta): void {
  if (typeof document === 'undefined') return;
  if (screenMeta === META_LOADING && headIsForThisAddress()) return;
  const meta = screenMeta === META_LOADING ? undefined : screenMeta;
  const wanted = meta?.title ?? title;
  if (document.title !== wanted) document.title = wanted;
  const present = [...document.head.querySelectorAll(managed)];
  const next = meta ? elementsOf(meta) : [];
  const same = present.length === next.length && present.every((node, index) => node.isEqualNode(next[index]!));
  if (same) return;
  for (const node of present) node.remove();
  if (next.length === 0) return;
  const titleElement = document.head.querySelector('title');
  if (titleElement) titleElement.after(...next);
  else document.head.append(...next);
}
