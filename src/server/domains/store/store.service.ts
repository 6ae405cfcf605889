import { and, asc, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import { languageCodes } from '../../../shared/i18n/languages.ts';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import { pageUrl } from '../../../shared/store/page-meta.ts';
import { branches, branchVersions, credentials, packages, projects, projectUsers, users, versionPackages, versions } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import { summarizePackage } from '../packages/records/describe-package.ts';
import { readProjectMedia } from '../content-images/project-media.service.ts';
import { storeCacheOf, type StoreReader } from './store-cache.ts';
import { newestStoreIndexUpdate } from './store-index.service.ts';

/** Notifications keep cached pages exact; the age limit only bounds what a missed one could leave. */
const storeCacheOptions = { maxAgeMs: 30_000, maxEntries: 1000 };

/**
 * GET /store/projects/{project}, as data (tRPC) and as its JSON text (REST sends it as is); both come
 * from the store cache (store-cache.ts).
 */
export async function getStoreProject(deps: Deps, projectId: string, reader?: StoreReader): Promise<StoreProject> {
  return (await storeCacheOf<StoreProject>(deps.database, storeCacheOptions).get(projectId, () => loadStoreProject(deps, projectId), reader)).value;
}

export async function getStoreProjectJson(deps: Deps, projectId: string, reader?: StoreReader): Promise<string> {
  return (await storeCacheOf<StoreProject>(deps.database, storeCacheOptions).get(projectId, () => loadStoreProject(deps, projectId), reader)).json;
}

/**
 * What anyone (signed in or not) sees of a public project: the owner with their public credentials,
 * the description, the cover and screenshots, and each public branch's current version with a summary
 * of its packages. Media URLs are absolute under PUBLIC_URL, else paths on the app's origin (the page
 * is cached for every request). Private projects are not_found for everyone here, members included
 * (the store is the public face).
 */
async function loadStoreProject(deps: Deps, projectId: string): Promise<StoreProject> {
  const [project] = await deps.db
    .select({
      id: projects.id,
      title: projects.title,
      storeTags: projects.storeTags,
      markdown: projects.descriptionMarkdown,
      lang: projects.descriptionLang,
      images: projects.descriptionImages,
      ownerId: users.id,
      ownerTitle: users.title,
    })
    .from(projects)
    .innerJoin(projectUsers, and(eq(projectUsers.projectId, projects.id), eq(projectUsers.isOwner, true)))
    .innerJoin(users, eq(users.id, projectUsers.userId))
    .where(and(eq(projects.id, projectId), eq(projects.isPublic, true)));
  if (!project) throw notFound('project');
  // Sign-in names of password accounts are never shown, public or not.
  const ownerCredentials = await deps.db
    .select({
      provider: credentials.provider,
      name: credentials.name,
      title: credentials.title,
      profileUrl: credentials.profileUrl,
      profilePictureUrl: credentials.profilePictureUrl,
    })
    .from(credentials)
    .where(and(eq(credentials.userId, project.ownerId), eq(credentials.isPublic, true), ne(credentials.provider, 'password')))
    .orderBy(asc(credentials.provider), asc(credentials.name));
  const current = await deps.db
    .selectDistinctOn([branchVersions.branchId], {
      branchId: branches.id,
      branchTitle: branches.title,
      versionId: versions.id,
      versionTitle: versions.title,
      versionDescription: versions.description,
      publishedAt: branchVersions.publishedAt,
    })
    .from(branchVersions)
    .innerJoin(branches, eq(branches.id, branchVersions.branchId))
    .innerJoin(versions, eq(versions.id, branchVersions.versionId))
    .where(and(eq(branches.projectId, projectId), eq(branches.isPublic, true)))
    .orderBy(branchVersions.branchId, desc(branchVersions.publishedAt), desc(branchVersions.id));
  const packageRows = current.length
    ? await deps.db
        .select({ versionId: versionPackages.versionId, id: packages.id, title: packages.title, tags: packages.tags, totalSize: packages.totalSize })
        .from(versionPackages)
        .innerJoin(packages, eq(packages.id, versionPackages.packageId))
        .where(inArray(versionPackages.versionId, current.map((row) => row.versionId)))
        .orderBy(asc(versionPackages.position))
    : [];
  const media = await readProjectMedia(deps.db, projectId, deps.config.publicUrl ?? '');
  const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });
  return {
    id: project.id,
    title: project.title,
    owner: { title: project.ownerTitle, credentials: ownerCredentials },
    storeTags: project.storeTags,
    description: { markdown: project.markdown, lang: project.lang, images: project.images },
    media,
    branches: current
      .sort((a, b) => collator.compare(a.branchTitle, b.branchTitle) || a.branchId.localeCompare(b.branchId))
      .map((row) => ({
        id: row.branchId,
        title: row.branchTitle,
        versionTitle: row.versionTitle,
        versionDescription: row.versionDescription,
        branchVersionPublished: row.publishedAt.toISOString(),
        packages: packageRows.filter((item) => item.versionId === row.versionId).map(summarizePackage),
      })),
  };
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[char]!);
}

/** A sitemap lastmod: W3C datetime in UTC to the second. */
function lastmodOf(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/**
 * A sitemap entry: its address, lastmod, and the same page in every language of the interface
 * (`?lang=`, as the pages' own hreflang links say) plus x-default, the address without a language.
 */
function sitemapUrl(base: string, path: string, lastmod: string | null): string {
  const alternates = [...languageCodes.map((code) => ({ hreflang: code, href: pageUrl(base, path, code) })), { hreflang: 'x-default', href: pageUrl(base, path) }];
  const links = alternates.map((alternate) => `<xhtml:link rel="alternate" hreflang="${alternate.hreflang}" href="${escapeXml(alternate.href)}"/>`).join('');
  return `  <url><loc>${escapeXml(pageUrl(base, path))}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}${links}</url>`;
}

/**
 * GET /store/sitemap.xml: the store index (/store, lastmod: its newest update), then one URL per public
 * project's store page, with the last publish to one of its public branches as lastmod (branches have
 * no page of their own); each with its language alternates (issue 21).
 */
export async function getStoreSitemap(deps: Deps, base: string): Promise<string> {
  const rows = await deps.db
    .select({
      id: projects.id,
      // Spelled out with aliases: drizzle leaves columns of a one-table select unqualified.
      lastPublished: sql<string | null>`(select to_char(max(bv.published_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
        from branch_versions bv join branches b on b.id = bv.branch_id where b.project_id = projects.id and b.is_public)`,
    })
    .from(projects)
    .where(eq(projects.isPublic, true))
    .orderBy(asc(projects.createdAt), asc(projects.id));
  const newest = await newestStoreIndexUpdate(deps);
  const urls = [sitemapUrl(base, '/store', newest ? lastmodOf(newest) : null), ...rows.map((row) => sitemapUrl(base, `/store/${encodeURIComponent(row.id)}`, row.lastPublished))];
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n${urls.join('\n')}\n</urlset>\n`;
}
