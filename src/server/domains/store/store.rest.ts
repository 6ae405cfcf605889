import { Elysia } from 'elysia';
import { z } from 'zod';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { storeProjectSchema } from '../../../shared/schemas/store.ts';
import type { Deps } from '../../deps.ts';
import { getStoreProjectJson, getStoreSitemap } from './store.service.ts';

export function storeRoutes(deps: Deps) {
  return new Elysia({ prefix: '/store', tags: ['Store'] })
    .get(
      '/projects/:project',
      async ({ params }) => new Response(await getStoreProjectJson(deps, params.project), { headers: { 'content-type': 'application/json' } }),
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
