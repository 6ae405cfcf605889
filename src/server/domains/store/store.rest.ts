import { Elysia } from 'elysia';
import { z } from 'zod';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { storeIndexPageSchema, storeIndexQuery } from '../../../shared/schemas/project-media.ts';
import { storeProjectSchema } from '../../../shared/schemas/store.ts';
import type { Deps } from '../../deps.ts';
import { bearerTokenOf } from '../../http/bearer-token.ts';
import { sessionTokenFromCookie } from '../../http/session-cookie.ts';
import { storeReaderOf, type StoreReader } from './store-cache.ts';
import { getStoreIndex } from './store-index.service.ts';
import { getStoreProjectJson, getStoreSitemap } from './store.service.ts';

/**
 * The query as sent: Elysia splits values at commas and parses ones in brackets or braces as JSON,
 * which would turn a search for "Hello, world" into a list. Runs before validation (transform), so
 * the schema sees strings; a repeated parameter stays a list and is refused.
 */
function queryAsSent({ query, request }: { query: Record<string, unknown>; request: Request }): void {
  const params = new URL(request.url).searchParams;
  for (const key of Object.keys(query)) delete query[key];
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
}

/** A caller with a token or a session cookie may have just changed what it reads (store-cache.ts StoreReader). */
function readerOf(request: Request): StoreReader {
  return storeReaderOf({ token: bearerTokenOf(request.headers.get('authorization')), cookieToken: sessionTokenFromCookie(request.headers.get('cookie')) });
}

export function storeRoutes(deps: Deps) {
  return new Elysia({ prefix: '/store', tags: ['Store'] })
    .get('/projects', ({ query, request }) => getStoreIndex(deps, query, readerOf(request)), {
      transform: queryAsSent,
      query: storeIndexQuery,
      response: storeIndexPageSchema,
      detail: { summary: 'The store index: public projects with a published public branch, by title in the collation of lang, searchable, paged by cursor' },
    })
    .get(
      '/projects/:project',
      async ({ params, request }) => new Response(await getStoreProjectJson(deps, params.project, readerOf(request)), { headers: { 'content-type': 'application/json' } }),
      {
        params: z.object({ project: projectIdSchema }),
        // Documents the reply; the cached JSON text was built from this shape.
        response: storeProjectSchema,
        detail: { summary: 'The public store page of a project' },
      },
    )
    .get(
      '/sitemap.xml',
      async ({ request }) => {
        const xml = await getStoreSitemap(deps, deps.config.publicUrl ?? new URL(request.url).origin);
        return new Response(xml, { headers: { 'content-type': 'application/xml; charset=utf-8', 'cache-control': 'public, max-age=3600' } });
      },
      { detail: { summary: 'Sitemap of the public store pages' } },
    );
}
