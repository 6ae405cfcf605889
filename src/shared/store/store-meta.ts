import { Lexer, type Token } from 'marked';
import { sortTags } from '../packages/tags.ts';
import { contentImagePath, contentImageWidths } from '../schemas/content-images.ts';
import type { StoreProject } from '../schemas/store.ts';
import { documentTitle, maxDescriptionLength, ogLocaleOf, pageAddresses, pageUrl, plainTextLine, type PageMeta, type PageMetaContext } from './page-meta.ts';

/**
 * Store pages' head data (issue 21, page-meta.ts): the project's page and its web packages' play pages
 * say the game's title, the first paragraph of its description as plain text, its cover at the size
 * link previews use, and schema.org VideoGame data; all from the store page the server caches.
 */

/** What a store page says in the page's language. */
export type StoreMetaTexts = {
  /** store_cover_alt: 'Cover art of {title}'. */
  coverAlt(title: string): string;
  /** What describes a project without a description of its own. */
  fallbackDescription(input: { title: string; owner: string; appName: string }): string;
};

/** The store page of a project (`/store/{project}`). */
export function storeProjectMeta(project: StoreProject, context: PageMetaContext, texts: StoreMetaTexts): PageMeta {
  return storeGameMeta(project, `/store/${encodeURIComponent(project.id)}`, project.title, context, texts);
}

/** The play page of one of its packages (`/store/{project}/{branch}/{package}/play`), titled `title` ('Play {package}'). */
export function storePlayMeta(project: StoreProject, branchId: string, packageId: string, title: string, context: PageMetaContext, texts: StoreMetaTexts): PageMeta {
  const path = `/store/${encodeURIComponent(project.id)}/${encodeURIComponent(branchId)}/${encodeURIComponent(packageId)}/play`;
  return storeGameMeta(project, path, title, context, texts);
}

function storeGameMeta(project: StoreProject, path: string, title: string, context: PageMetaContext, texts: StoreMetaTexts): PageMeta {
  const description =
    descriptionSummary(project.description.markdown) ||
    plainTextLine(texts.fallbackDescription({ title: project.title, owner: project.owner.title, appName: context.appName }), maxDescriptionLength);
  const picture = project.media.cover ?? project.media.screenshots[0];
  const image = picture ? { ...previewImage(picture, context.baseUrl), alt: texts.coverAlt(project.title) } : undefined;
  const storeUrl = pageUrl(context.baseUrl, `/store/${encodeURIComponent(project.id)}`);
  return {
    title: documentTitle(title, context.appName),
    shareTitle: title,
    description,
    ...pageAddresses(path, context),
    siteName: context.appName,
    locale: ogLocaleOf(context.language),
    image,
    jsonLd: videoGameJsonLd(project, { url: storeUrl, description, image: image?.url, baseUrl: context.baseUrl }),
  };
}

/** schema.org VideoGame: what search engines show of a game (free: an offer at 0). */
function videoGameJsonLd(project: StoreProject, input: { url: string; description: string; image: string | undefined; baseUrl: string }): Record<string, unknown> {
  const profiles = project.owner.credentials.map((credential) => credential.profileUrl).filter((url): url is string => typeof url === 'string' && /^https?:\/\//.test(url));
  const published = project.branches.map((branch) => branch.branchVersionPublished).sort();
  const platforms = gamePlatforms(project);
  const screenshots = project.media.screenshots.map((shot) => previewImage(shot, input.baseUrl).url);
  return {
    '@context': 'https://schema.org',
    '@type': 'VideoGame',
    name: project.title,
    description: input.description,
    url: input.url,
    ...(input.image ? { image: input.image } : {}),
    ...(screenshots.length ? { screenshot: screenshots } : {}),
    author: { '@type': 'Person', name: project.owner.title, ...(profiles.length ? { sameAs: profiles } : {}) },
    ...(platforms.length ? { gamePlatform: platforms } : {}),
    ...(project.description.lang ? { inLanguage: project.description.lang } : {}),
    ...(published.length ? { dateModified: published.at(-1) } : {}),
    applicationCategory: 'Game',
    isAccessibleForFree: true,
    offers: { '@type': 'Offer', price: '0', priceCurrency: 'USD', availability: 'https://schema.org/InStock', url: input.url },
  };
}

const platformNames: Record<string, string> = { windows: 'Windows', linux: 'Linux', macos: 'macOS', android: 'Android', ios: 'iOS', web: 'Web browser' };

/** The platforms of the packages in the public branches' current versions (os tags), in tag order. */
function gamePlatforms(project: StoreProject): string[] {
  const tags = project.branches.flatMap((branch) => branch.packages.flatMap((item) => item.tags.filter((tag) => tag.startsWith('os:'))));
  return sortTags(tags).map((tag) => platformNames[tag.slice(3)] ?? tag.slice(3));
}

/** The width link previews use (Open Graph asks for about 1200 px): the smallest made size from it, else the largest. */
const previewImageWidth = 1200;

/** The size of a content image a link preview shows, absolute. */
export function previewImage(image: { id: string; width: number; height: number }, baseUrl: string): { url: string; width: number; height: number } {
  const widths = contentImageWidths(image.width);
  const width = widths.find((size) => size >= previewImageWidth) ?? widths.at(-1)!;
  const height = Math.max(1, Math.round((width * image.height) / image.width));
  return { url: `${baseUrl.replace(/\/+$/, '')}${contentImagePath(image.id, width)}`, width, height };
}

/** Markdown read beyond this is not looked at: the first paragraph is near the start. */
const summaryScanLength = 20_000;

/**
 * The description's first paragraph with words in it, as one line of plain text (emphasis, links and
 * code kept as their words, images, HTML and footnote marks dropped, character references decoded),
 * cut at a word to maxLength characters with '…'; '' when there is none.
 */
export function descriptionSummary(markdown: string, maxLength = maxDescriptionLength): string {
  let tokens: Token[];
  try {
    tokens = new Lexer({ gfm: true }).lex(markdown.slice(0, summaryScanLength));
  } catch {
    return '';
  }
  for (const token of tokens) {
    if (token.type !== 'paragraph') continue;
    const text = plainTextLine(inlineText((token as { tokens?: Token[] }).tokens ?? []), maxLength);
    if (/[\p{L}\p{N}]/u.test(text)) return text;
  }
  return '';
}

function inlineText(tokens: readonly Token[]): string {
  let text = '';
  for (const token of tokens) {
    switch (token.type) {
      case 'image':
      case 'html':
        break;
      case 'link':
        // A footnote reference ([^1]) that a definition turned into a reference link: a mark, not words.
        if ((token as { text: string }).text.startsWith('^')) break;
        text += inlineText((token as { tokens?: Token[] }).tokens ?? []);
        break;
      case 'br':
        text += ' ';
        break;
      case 'codespan':
      case 'escape':
        text += (token as { text: string }).text;
        break;
      default: {
        const children = (token as { tokens?: Token[] }).tokens;
        text += children?.length ? inlineText(children) : decodeReferences(String((token as { text?: unknown }).text ?? ''));
      }
    }
  }
  return text;
}

const namedReferences: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeReferences(text: string): string {
  return text.replace(/&(#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-z]+);/g, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return namedReferences[name] ?? whole;
  });
}

