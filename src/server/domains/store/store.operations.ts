import { z } from 'zod';
import { routes } from '../../../shared/api/routes.ts';
import { storeIndexPageSchema, storeIndexQuery } from '../../../shared/schemas/project-media.ts';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { bindOperations, handwritten } from '../../operations/binding.ts';
import { procedure } from '../../trpc/init.ts';
import { storeReaderOf } from './store-cache.ts';
import { getStoreIndex } from './store-index.service.ts';
import { getStoreProject } from './store.service.ts';

/** A caller with a token or a session cookie may have just changed what it reads (store-cache.ts StoreReader). */
export const storeOperations = bindOperations('Store', routes.store, {
  index: {
    query: storeIndexQuery,
    reply: storeIndexPageSchema,
    summary: 'The store index: public projects with a published public branch, by title in the collation of lang, searchable, paged by cursor',
    errors: [],
    // A public list: a stale token in the browser must not stop it.
    actor: 'none',
    run: ({ deps, query, token, cookieToken }) => getStoreIndex(deps, query, storeReaderOf({ token, cookieToken })),
  },
  project: handwritten(
    "REST sends the store cache's JSON text as it is, without parsing it again (store.rest.ts)",
    procedure.input(z.object({ project: projectIdSchema })).query(({ ctx, input }) => getStoreProject(ctx.deps, input.project, storeReaderOf(ctx))),
  ),
  sitemap: handwritten('an XML file, not a call (store.rest.ts)'),
});
