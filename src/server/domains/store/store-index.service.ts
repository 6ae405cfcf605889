import { createHash } from 'node:crypto';
import { and, desc, eq, inArray, max, type SQL } from 'drizzle-orm';
import { sortTags } from '../../../shared/packages/tags.ts';
import { storeIndexQuery, type StoreIndexItem, type StoreIndexPage } from '../../../shared/schemas/project-media.ts';
import { branches, branchVersions, contentImages, packages, projectMedia, projects, projectUsers, users, versionPackages } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../errors.ts';
import { describeMediaImage, mediaImageColumns } from '../content-images/project-media.service.ts';
import { storeListOf, type StoreListView, type StoreReader } from './store-cache.ts';

/**
 * GET /store/projects: the store index (issue 19). A project is listed when it is public and at least
 * one of its public branches has a published version; its item carries the title, the cover, the
 * platforms (os tag values of the packages in each public branch's current version, in tag order),
 * the last publish to a public branch and the owner's name.
 *
 * Every listed project's item is kept in the store cache (storeListOf, store-cache.ts): the same
 * 'store_changed' notifications that drop store pages (publish, visibility, titles, media, branches,
 * packages, the owner's name) mark a project dirty, and the next read reloads only those. Search,
 * sorting and paging run in JS over that list, the same on PGlite and PostgreSQL: the title and the
 * store tags (issue 29) are folded (NFKD, marks removed, a few letters spelled out, case folded) and
 * every word of the query must occur in one of them; the order is Intl.Collator of `lang` (unknown: 'en') on the title, then the id, kept per
 * language until the list changes.
 */

type IndexEntry = { item: StoreIndexItem; folded: string; updatedMs: number };

/** Every read checks the dirty projects; this only bounds what a missed notification could leave. */
const indexListOptions = { maxAgeMs: 30_000 };
const indexListName = 'store-index';

/** Letters NFKD leaves whole, spelled as a reader without them would type them. */
const spelledOut: Record<string, string> = { ø: 'o', đ: 'd', ð: 'd', ħ: 'h', ı: 'i', ł: 'l', œ: 'oe', æ: 'ae', þ: 'th', ŧ: 't', ß: 'ss' };

/** Case- and accent-insensitive form of a title or query: 'Ærø Straße' → 'aero strasse'. */
function foldForSearch(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[øđðħıłœæþŧß]/g, (letter) => spelledOut[letter]!)
    .toUpperCase()
    .toLowerCase();
}

/**
 * What a query's words are looked for in: the folded title and store tags, one per line (a query
 * word never holds a line break, so none matches across two of them).
 */
function searchTextOf(title: string, storeTags: string[]): string {
  return [title, ...storeTags].map(foldForSearch).join('\n');
}

function queryWords(query: string | undefined): string[] {
  if (!query) return [];
  return foldForSearch(query)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

const collators = new Map<string, Intl.Collator>();

/** The collation locale of `lang` (Intl's resolved locale), 'en' for anything Intl does not know. */
function collationLocale(lang: string | undefined): string {
  if (!lang) return 'en';
  try {
    const [supported] = Intl.Collator.supportedLocalesOf([lang]);
    return supported ? new Intl.Collator(supported).resolvedOptions().locale : 'en';
  } catch {
    // Well formed by the schema's pattern, yet not a language tag Intl takes ('en-a1').
    return 'en';
  }
}

function collatorOf(locale: string): Intl.Collator {
  let collator = collators.get(locale);
  if (!collator) {
    collator = new Intl.Collator(locale, { numeric: true });
    if (collators.size > 64) collators.clear();
    collators.set(locale, collator);
  }
  return collator;
}

/** The items of these projects (all listed projects when `projectIds` is undefined). */
async function loadIndexEntries(deps: Deps, projectIds: string[] | undefined): Promise<Map<string, IndexEntry>> {
  const entries = new Map<string, IndexEntry>();
  if (projectIds?.length === 0) return entries;
  const only: SQL | undefined = projectIds ? inArray(projects.id, projectIds) : undefined;
  const listed = await deps.db
    .select({ id: projects.id, title: projects.title, storeTags: projects.storeTags, ownerTitle: users.title, updated: max(branchVersions.publishedAt) })
    .from(projects)
    .innerJoin(branches, and(eq(branches.projectId, projects.id), eq(branches.isPublic, true)))
    .innerJoin(branchVersions, eq(branchVersions.branchId, branches.id))
    .innerJoin(projectUsers, and(eq(projectUsers.projectId, projects.id), eq(projectUsers.isOwner, true)))
    .innerJoin(users, eq(users.id, projectUsers.userId))
    .where(and(eq(projects.isPublic, true), only))
    .groupBy(projects.id, users.id);
  if (listed.length === 0) return entries;

  // The current version of each public branch (its latest publish), then the tags of its packages.
  const current = deps.db
    .selectDistinctOn([branchVersions.branchId], { projectId: branches.projectId, versionId: branchVersions.versionId })
    .from(branchVersions)
    .innerJoin(branches, and(eq(branches.id, branchVersions.branchId), eq(branches.isPublic, true)))
    .innerJoin(projects, and(eq(projects.id, branches.projectId), eq(projects.isPublic, true)))
    .where(only)
    .orderBy(branchVersions.branchId, desc(branchVersions.publishedAt), desc(branchVersions.id))
    .as('current');
  const tagRows = await deps.db
    .select({ projectId: current.projectId, tags: packages.tags })
    .from(current)
    .innerJoin(versionPackages, eq(versionPackages.versionId, current.versionId))
    .innerJoin(packages, eq(packages.id, versionPackages.packageId));
  const tagsOf = new Map<string, string[]>();
  for (const row of tagRows) {
    const list = tagsOf.get(row.projectId) ?? [];
    for (const tag of row.tags) if (tag.startsWith('os:')) list.push(tag);
    tagsOf.set(row.projectId, list);
  }

  const coverRows = await deps.db
    .select({ projectId: projectMedia.projectId, image: mediaImageColumns })
    .from(projectMedia)
    .innerJoin(contentImages, eq(contentImages.id, projectMedia.imageId))
    .innerJoin(projects, and(eq(projects.id, projectMedia.projectId), eq(projects.isPublic, true)))
    .where(and(eq(projectMedia.role, 'cover'), only));
  // Cached for every request: absolute under PUBLIC_URL, else a path on the app's origin.
  const appUrl = deps.config.publicUrl ?? '';
  const covers = new Map(coverRows.map((row) => [row.projectId, describeMediaImage(row.image, appUrl)]));

  for (const row of listed) {
    if (!row.updated) continue;
    entries.set(row.id, {
      item: {
        id: row.id,
        title: row.title,
        cover: covers.get(row.id) ?? null,
        platforms: sortTags(tagsOf.get(row.id) ?? []).map((tag) => tag.slice('os:'.length)),
        updated: row.updated.toISOString(),
        ownerTitle: row.ownerTitle,
      },
      folded: searchTextOf(row.title, row.storeTags),
      updatedMs: row.updated.getTime(),
    });
  }
  return entries;
}

/** Every listed project's item, up to date (store cache). */
async function indexList(deps: Deps, reader?: StoreReader): Promise<StoreListView<IndexEntry>> {
  return storeListOf<IndexEntry>(deps.database, indexListName, indexListOptions).get(
    {
      all: () => loadIndexEntries(deps, undefined),
      some: (ids) => loadIndexEntries(deps, ids),
    },
    reader,
  );
}

/** The newest `updated` of the index (the sitemap's lastmod of /store), or null when it is empty. */
export async function newestStoreIndexUpdate(deps: Deps): Promise<Date | null> {
  const view = await indexList(deps);
  const newest = view.derive('newest', () => {
    let ms = -Infinity;
    for (const entry of view.items.values()) ms = Math.max(ms, entry.updatedMs);
    return ms;
  });
  return Number.isFinite(newest) ? new Date(newest) : null;
}

/**
 * A cursor is the offset of the next page and a fingerprint of the offset, the language and the
 * query, base64url: opaque to clients, and one garbled or taken to another query is bad_param.
 */
function fingerprintOf(offset: number, locale: string, words: string[]): string {
  return createHash('sha256').update(`store-index\n${offset}\n${locale}\n${words.join(' ')}`).digest('base64url').slice(0, 11);
}

function encodeCursor(offset: number, locale: string, words: string[]): string {
  return Buffer.from(`${offset}.${fingerprintOf(offset, locale, words)}`).toString('base64url');
}

function decodeCursor(cursor: string, locale: string, words: string[]): number {
  const invalid = () => new AppError('bad_param', 'Invalid `cursor`: pass the `next` of the previous page with the same query and lang');
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  const decoded = Buffer.from(cursor, 'base64url').toString('latin1');
  // Decoding skips stray trailing characters: only the exact encoding of what it read is the cursor.
  if (Buffer.from(decoded, 'latin1').toString('base64url') !== cursor) throw invalid();
  const match = /^(\d{1,9})\.([A-Za-z0-9_-]{11})$/.exec(decoded);
  if (!match) throw invalid();
  const offset = Number(match[1]);
  if (match[2] !== fingerprintOf(offset, locale, words)) throw invalid();
  return offset;
}

/**
 * GET /store/projects?query&lang&cursor&count (anyone): one page of the store index, `count` items
 * (default 24, at most 60) from the cursor on, `next` the following page's cursor (null on the last),
 * `total` how many match over all pages.
 */
export async function getStoreIndex(deps: Deps, rawQuery: unknown, reader?: StoreReader): Promise<StoreIndexPage> {
  const input = storeIndexQuery.parse(rawQuery);
  const locale = collationLocale(input.lang);
  const words = queryWords(input.query);
  const offset = input.cursor ? decodeCursor(input.cursor, locale, words) : 0;
  const view = await indexList(deps, reader);
  const sorted = view.derive(`sorted:${locale}`, () => {
    const collator = collatorOf(locale);
    return [...view.items.values()].sort((a, b) => collator.compare(a.item.title, b.item.title) || (a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : 0));
  });
  const matching = words.length === 0 ? sorted : sorted.filter((entry) => words.every((word) => entry.folded.includes(word)));
  const end = offset + input.count;
  return {
    items: matching.slice(offset, end).map((entry) => entry.item),
    next: end < matching.length ? encodeCursor(end, locale, words) : null,
    total: matching.length,
  };
}
