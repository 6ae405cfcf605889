import { Elysia } from 'elysia';
import { z } from 'zod';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { storeProjectSchema } from '../../../shared/schemas/store.ts';
import { routes } from '../../../shared/api/routes.ts';
import type { Deps } from '../../deps.ts';
import { appUrlOf } from '../../http/app-url.ts';
import { bearerTokenOf } from '../../http/bearer-token.ts';
import { sessionTokenFromCookie } from '../../http/session-cookie.ts';
import { storeReaderOf, type StoreReader } from './store-cache.ts';
import { getStoreProjectJson, getStoreSitemap } from './store.service.ts';

/** A caller with a token or a session cookie may have just changed what it reads (store-cache.ts StoreReader). */
function readerOf(request: Request): StoreReader {
  return storeReaderOf({ token: bearerTokenOf(request.headers.get('authorization')), cookieToken: sessionTokenFromCookie(request.headers.get('cookie')) });
}

/** The store's hand-written doors: the page's cached JSON text and the sitemap file (store.operations.ts has the rest). */
export function storeRoutes(deps: Deps) {
  return new Elysia({ tags: ['Store'] })
    .get(
      routes.store.project.path,
      async ({ params, request }) => new Response(await getStoreProjectJson(deps, params.project, readerOf(request)), { headers: { 'content-type': 'application/json' } }),
      {
        params: z.object({ project: projectIdSchema }),
        // Documents the reply; the cached JSON text was built from this shape.
        response: storeProjectSchema,
        detail: { summary: 'The public store page of a project' },
      },
    )
    .get(
      routes.store.sitemap.path,
      async ({ request }) => {
        const xml = await getStoreSitemap(deps, appUrlOf(deps.config, request));
        return new Response(xml, { headers: { 'content-type': 'application/xml; charset=utf-8', 'cache-control': 'public, max-age=3600' } });
      },
      { detail: { summary: 'Sitemap of the public store pages' } },
    );
}
