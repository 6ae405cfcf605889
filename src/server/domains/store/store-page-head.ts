import { home_description } from '../../../shared/i18n/paraglide/messages/home_description.js';
import { home_title } from '../../../shared/i18n/paraglide/messages/home_title.js';
import { play_page_title } from '../../../shared/i18n/paraglide/messages/play_page_title.js';
import { store_cover_alt } from '../../../shared/i18n/paraglide/messages/store_cover_alt.js';
import { store_index_intro } from '../../../shared/i18n/paraglide/messages/store_index_intro.js';
import { store_meta_fallback_description } from '../../../shared/i18n/paraglide/messages/store_meta_fallback_description.js';
import { store_title } from '../../../shared/i18n/paraglide/messages/store_title.js';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import { simplePageMeta, type PageMetaContext } from '../../../shared/store/page-meta.ts';
import { appUrlOf } from '../../http/app-url.ts';
import { storePlayMeta, storeProjectMeta, type StoreMetaTexts } from '../../../shared/store/store-meta.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../errors.ts';
import { renderPageHead, titleOnlyHead, type PageHead } from '../../http/page-head-html.ts';
import { pageLanguageOf, pageLanguages, type PageLanguage } from '../../http/page-language.ts';
import { getStoreProject } from './store.service.ts';

/**
 * The head of the app shell for each request (issue 21; client-assets.ts puts it in place): public
 * store pages (`/store/{project}`, a web package's `/store/{project}/{branch}/{package}/play`), the
 * store index and home get their own title, description, canonical URL with language alternates, link
 * preview tags and (games) schema.org JSON-LD, in the page's language (page-language.ts); every other
 * path, and any project the store does not show (private, unknown, malformed ids alike), the generic
 * head: the app's name as title. Nothing about a project the store does not show is read or said.
 *
 * The data is the cached store page (getStoreProject: no query while it is cached), read as a visitor
 * (no catch-up round trip: a head that lags a change by the notification's milliseconds is fine).
 * The rendered head is kept with that cached page object (a WeakMap: it goes when the page is dropped)
 * per language and address, so a repeated request costs a map lookup; the same PageHead object each
 * time, so client-assets.ts encodes and compresses each page once.
 */
export type PageHeads = (request: Request, url?: URL) => Promise<PageHead>;

/** Heads kept per cached store page (languages × addresses; bounded against hostile Host headers). */
const maxHeadsPerPage = 64;
const maxSimpleHeads = 256;

export function createPageHeads(deps: Deps): PageHeads {
  const byProject = new WeakMap<StoreProject, Map<string, PageHead>>();
  const simple = new Map<string, PageHead>();
  const generics = new Map<string, PageHead>();
  const appName = deps.config.appName;

  const contextOf = (url: URL, language: PageLanguage): PageMetaContext => ({
    baseUrl: appUrlOf(deps.config, url),
    appName,
    language: language.code,
    languageInUrl: language.inUrl,
    languages: pageLanguages,
  });

  const textsOf = (language: PageLanguage): StoreMetaTexts => {
    const locale = { locale: language.code };
    return {
      coverAlt: (title) => store_cover_alt({ title }, locale),
      fallbackDescription: (input) => store_meta_fallback_description(input, locale),
    };
  };

  const kept = <K, V>(map: Map<K, V>, key: K, limit: number, make: () => V): V => {
    const found = map.get(key);
    if (found !== undefined) return found;
    const made = make();
    if (map.size >= limit) map.clear();
    map.set(key, made);
    return made;
  };

  // One object per head: client-assets.ts keeps each one's bytes (and gzip) with it.
  const generic = (language: PageLanguage): PageHead =>
    kept(generics, language.code, maxSimpleHeads, () => ({ lang: language.code, dir: language.dir, head: titleOnlyHead(appName) }));

  return async (request, given) => {
    const url = given ?? new URL(request.url);
    const language = pageLanguageOf(url, request.headers.get('accept-language'));
    const route = storeRouteOf(url.pathname);
    if (!route) return generic(language);
    const context = contextOf(url, language);
    const locale = { locale: language.code };
    const cacheKey = `${route.kind}\n${language.code}\n${language.inUrl}\n${context.baseUrl}`;
    const head = (html: string): PageHead => ({ lang: language.code, dir: language.dir, head: html });

    if (route.kind === 'home') {
      return kept(simple, cacheKey, maxSimpleHeads, () => head(renderPageHead(simplePageMeta('/', home_title({}, locale), home_description({}, locale), context))));
    }
    if (route.kind === 'index') {
      return kept(simple, cacheKey, maxSimpleHeads, () => head(renderPageHead(simplePageMeta('/store', store_title({}, locale), store_index_intro({ appName }, locale), context))));
    }
    const project = await publicStoreProject(deps, route.project);
    if (!project) return generic(language);
    let heads = byProject.get(project);
    if (!heads) byProject.set(project, (heads = new Map()));
    if (route.kind === 'project') {
      return kept(heads, cacheKey, maxHeadsPerPage, () => head(renderPageHead(storeProjectMeta(project, context, textsOf(language)))));
    }
    // A play page exists for a web package listed on the store page (a public branch's current version).
    const branch = project.branches.find((item) => item.id === route.branch);
    const pkg = branch?.packages.find((item) => item.id === route.package);
    if (!branch || !pkg || !pkg.tags.includes('os:web')) return generic(language);
    const playKey = `${cacheKey}\n${branch.id}\n${pkg.id}`;
    return kept(heads, playKey, maxHeadsPerPage, () =>
      head(renderPageHead(storePlayMeta(project, branch.id, pkg.id, play_page_title({ title: pkg.title }, locale), context, textsOf(language)))),
    );
  };
}

type StoreRoute =
  | { kind: 'home' }
  | { kind: 'index' }
  | { kind: 'project'; project: string }
  | { kind: 'play'; project: string; branch: string; package: string };

/** The public page a path names, its ids decoded and well formed (else undefined: the generic head). */
export function storeRouteOf(pathname: string): StoreRoute | undefined {
  if (pathname === '/') return { kind: 'home' };
  if (pathname.length > 400) return undefined;
  const segments = pathname.split('/').slice(1);
  if (segments.at(-1) === '' && segments.length > 1) segments.pop();
  if (segments[0] !== 'store') return undefined;
  if (segments.length === 1) return { kind: 'index' };
  const ids = segments.slice(1).map(decodedId);
  if (ids.some((id) => id === undefined)) return undefined;
  if (segments.length === 2) return { kind: 'project', project: ids[0]! };
  if (segments.length === 5 && segments[4] === 'play') return { kind: 'play', project: ids[0]!, branch: ids[1]!, package: ids[2]! };
  return undefined;
}

/** recordIdSchema's rule, as a pattern (this runs on every page request). */
const idPattern = /^[A-Za-z0-9_-]{1,64}$/;

function decodedId(segment: string): string | undefined {
  if (idPattern.test(segment)) return segment;
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  return idPattern.test(id) ? id : undefined;
}

/** The cached store page, or undefined for every project the store does not show (not_found). */
async function publicStoreProject(deps: Deps, projectId: string): Promise<StoreProject | undefined> {
  try {
    return await getStoreProject(deps, projectId, { signedIn: false });
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') return undefined;
    throw error;
  }
}
