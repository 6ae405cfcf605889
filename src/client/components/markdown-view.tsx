import DOMPurify from 'dompurify';
import { Marked, type MarkedExtension, type TokenizerExtension } from 'marked';
import markedFootnote from 'marked-footnote';
import { gfmHeadingId } from 'marked-gfm-heading-id';
import { useMemo } from 'react';
import { markdown_footnote_back } from '../../shared/i18n/paraglide/messages/markdown_footnote_back.js';
import { markdown_footnotes } from '../../shared/i18n/paraglide/messages/markdown_footnotes.js';
import { getLanguage } from '../lib/i18n/index.ts';
import { contentAddressOf, contentImageSources, type ContentAddress, type SizedImage } from '../lib/content-image-sources.ts';
import type { Description } from '../../shared/schemas/projects.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { markdown_footnote_back, markdown_footnotes };

export type MarkdownImage = Description['images'][number];

/** What every id in user content starts with, so it never names (clobbers) one of the page's own elements. */
const userContentPrefix = 'user-content-';

/** Spec §9: footnote labels have at most this many characters; a longer `[^label]` stays literal text. */
export const maxFootnoteLabelLength = 999;

export type RenderOptions = {
  /** The content's uploaded images: a matching <img> gets its size and a srcset. */
  images?: readonly MarkdownImage[];
  /**
   * Levels added to every heading, so a '# Title' written by a user sits below the page's own
   * headings (1 turns it into an h2); capped at h6.
   */
  headingOffset?: number;
  /**
   * Where the ids of headings and footnotes start (default `user-content-`): the editor's preview uses
   * its own, so the preview and the page behind the dialog never share an id.
   */
  idPrefix?: string;
  /**
   * Object URLs this page made for pasted images still uploading (the editor's temporary previews):
   * only these `blob:` addresses are kept, and only as an <img> source.
   */
  localImages?: ReadonlySet<string>;
};

/** A `[^label]` at the start of `src` whose label is longer than spec §9 allows. */
function overlongLabel(src: string): boolean {
  const match = /^\[\^([^\]\n]+)\]/.exec(src);
  return match !== null && match[1]!.length > maxFootnoteLabelLength;
}

/**
 * marked-footnote with the spec's label limit (an over-long label is neither a footnote nor a reference,
 * so it stays text) and its 'Footnotes' heading at the content's top heading level instead of a fixed h2.
 */
function footnotes(idPrefix: string, headingLevel: number): MarkedExtension {
  const extension = markedFootnote({
    prefixId: `${idPrefix}fn-`,
    description: m.markdown_footnotes(),
    backRefLabel: m.markdown_footnote_back({ label: '{0}' }),
    headingClass: 'visually_hidden',
  });
  for (const item of extension.extensions ?? []) {
    if ('tokenizer' in item && item.tokenizer) {
      const tokenizer = item.tokenizer as TokenizerExtension['tokenizer'];
      (item as TokenizerExtension).tokenizer = function (src, tokens) {
        return overlongLabel(src) ? undefined : tokenizer.call(this, src, tokens);
      };
    }
    if (item.name === 'footnotes' && 'renderer' in item && item.renderer) {
      const render = item.renderer;
      item.renderer = function (token) {
        const html = render.call(this, token);
        if (typeof html !== 'string') return html;
        return html.replace(/<h2( [^>]*)?>([\s\S]*?)<\/h2>/, `<h${headingLevel}$1>$2</h${headingLevel}>`);
      };
    }
  }
  return extension;
}

const parsers = new Map<string, Marked>();

function parserFor(headingOffset: number, idPrefix: string): Marked {
  // The footnotes' words are the interface language's: a parser per language too.
  const key = `${headingOffset}\n${idPrefix}\n${getLanguage()}`;
  let parser = parsers.get(key);
  if (!parser) {
    parser = new Marked({ gfm: true });
    parser.use(gfmHeadingId({ prefix: idPrefix }), footnotes(idPrefix, Math.min(6, 1 + headingOffset)), {
      walkTokens(token) {
        if (token.type === 'heading') token.depth = Math.min(6, token.depth + headingOffset);
      },
    });
    parsers.set(key, parser);
  }
  return parser;
}

/** What is known of an <img src>: a listed image, or a content image named by its address alone. */
function imageFor(src: string, byUrl: ReadonlyMap<string, MarkdownImage>, byId: ReadonlyMap<string, MarkdownImage>): { image: SizedImage; address?: ContentAddress } | undefined {
  const address = contentAddressOf(src);
  const listed = byUrl.get(src) ?? (address ? byId.get(address.id) : undefined);
  if (listed) return { image: listed, address: address?.id === listed.id ? address : undefined };
  // Not in the list (a version's notes have none): the address names the image and its full width.
  if (address) return { image: { url: src, width: address.width, scale: 100 }, address };
  return undefined;
}

/** Spec §9 images: lazy, decoded off the main thread, sized (no layout shift) and with a srcset. */
function dressImage(img: Element, byUrl: ReadonlyMap<string, MarkdownImage>, byId: ReadonlyMap<string, MarkdownImage>): void {
  img.setAttribute('loading', 'lazy');
  img.setAttribute('decoding', 'async');
  const found = imageFor(img.getAttribute('src') ?? '', byUrl, byId);
  if (!found) return;
  const sources = contentImageSources(found.image, found.address);
  img.setAttribute('width', String(sources.width));
  if (sources.height !== undefined) img.setAttribute('height', String(sources.height));
  else img.removeAttribute('height');
  img.setAttribute('srcset', sources.srcset);
  // The browser takes the size the laid-out width needs (sizes=auto for lazy images), else the CSS
  // width capped by the viewport.
  if (sources.widthDescriptors) img.setAttribute('sizes', `auto, (max-width: ${sources.width}px) 100vw, ${sources.width}px`);
  else img.removeAttribute('sizes');
}

/**
 * The sanitised tree's finishing pass: links, images and ids as spec §9 and the page need them. Done on
 * the sanitiser's output tree (never re-parsed from text), so nothing it adds is sanitised away.
 */
function finish(root: DocumentFragment, options: RenderOptions, idPrefix: string): void {
  const images = options.images ?? [];
  const byUrl = new Map(images.map((image) => [image.url, image]));
  const byId = new Map(images.map((image) => [image.id, image]));
  for (const element of root.querySelectorAll('[id], [name]')) {
    // Ids and names the content wrote itself cannot clobber the page's (DOMPurify's SANITIZE_NAMED_PROPS too).
    for (const attribute of ['id', 'name']) {
      const value = element.getAttribute(attribute);
      if (value !== null && !value.startsWith(userContentPrefix)) element.setAttribute(attribute, `${userContentPrefix}${value}`);
    }
  }
  for (const link of root.querySelectorAll('a[href]')) {
    const href = link.getAttribute('href') ?? '';
    if (href.startsWith('#')) {
      // An anchor in the same content: its target's id carries the prefix.
      const target = href.slice(1);
      if (target && !target.startsWith(userContentPrefix)) link.setAttribute('href', `#${idPrefix}${target}`);
      link.removeAttribute('target');
      link.removeAttribute('rel');
      continue;
    }
    link.setAttribute('rel', 'ugc nofollow noopener noreferrer');
    link.setAttribute('target', '_blank');
  }
  for (const input of root.querySelectorAll('input')) {
    // GFM task lists' checkboxes are the only controls content has; they show a state, never take input.
    if (input.getAttribute('type') === 'checkbox') input.setAttribute('disabled', '');
    else input.remove();
  }
  for (const img of root.querySelectorAll('img')) dressImage(img, byUrl, byId);
}

/**
 * User-written markdown (descriptions, version notes) → sanitised HTML, the one renderer of every page
 * and of the editor's preview. Spec §9: links are rel 'ugc nofollow' and open in a new tab without
 * access to this page (noopener); images load lazily with their size and, when they are content images,
 * a srcset of every width the server made; footnotes (labels up to 999 characters) and headings with
 * ids (`user-content-…`, so a link to `#title` in the text reaches its heading).
 */
export function renderUserMarkdown(markdown: string, options: RenderOptions = {}): string {
  const idPrefix = options.idPrefix ?? userContentPrefix;
  const raw = parserFor(options.headingOffset ?? 0, idPrefix).parse(markdown, { async: false });
  const localImages = options.localImages;
  // A purifier per call: bound to the current window (see docs/markdown.ts), and its hooks stay its own.
  const purifier = DOMPurify(window);
  if (localImages && localImages.size > 0) {
    purifier.addHook('uponSanitizeAttribute', (node, data) => {
      // The editor's own temporary previews (blob: is not an allowed scheme otherwise).
      if (node.nodeName === 'IMG' && data.attrName === 'src' && localImages.has(data.attrValue)) data.forceKeepAttr = true;
    });
  }
  // The leading newline is for happy-dom (component tests), whose parser drops the first element of
  // markup that starts with a tag; browsers ignore it. Style attributes go: the app's CSP would refuse
  // them anyway, and users' markup has no business restyling the page.
  const fragment = purifier.sanitize(`\n${raw}`, {
    USE_PROFILES: { html: true },
    // Nothing that restyles the page (CSS), collects input (a form posting elsewhere) or hides markup for later.
    FORBID_TAGS: ['style', 'form', 'button', 'textarea', 'select', 'option', 'optgroup', 'datalist', 'dialog', 'template'],
    FORBID_ATTR: ['style'],
    SANITIZE_NAMED_PROPS: true,
    RETURN_DOM_FRAGMENT: true,
  });
  finish(fragment, options, idPrefix);
  const holder = fragment.ownerDocument.createElement('div');
  holder.append(fragment);
  return holder.innerHTML.trim();
}

export type MarkdownViewProps = RenderOptions & {
  markdown: string;
  /** The content's language (BCP 47), when its author gave one. */
  lang?: string | null;
  className?: string;
};

/** Shows user-written markdown, sanitised (see renderUserMarkdown), in the direction of its own text. */
export function MarkdownView({ markdown, images, headingOffset, idPrefix, localImages, lang, className }: MarkdownViewProps) {
  const html = useMemo(() => renderUserMarkdown(markdown, { images, headingOffset, idPrefix, localImages }), [markdown, images, headingOffset, idPrefix, localImages]);
  return <div className={`markdown markdown_view ${className ?? ''}`.trim()} lang={lang ?? undefined} dir="auto" dangerouslySetInnerHTML={{ __html: html }} />;
}
