import { z } from 'zod';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { storeIndexQuery } from '../../../shared/schemas/project-media.ts';
import { procedure, router } from '../../trpc/init.ts';
import { storeReaderOf } from './store-cache.ts';
import { getStoreIndex } from './store-index.service.ts';
import { getStoreProject } from './store.service.ts';

/** A caller with a token or a session cookie may have just changed what it reads (store-cache.ts StoreReader). */
export const storeRouter = router({
  index: procedure.input(storeIndexQuery).query(({ ctx, input }) => getStoreIndex(ctx.deps, input, storeReaderOf(ctx))),
  project: procedure.input(z.object({ project: projectIdSchema })).query(({ ctx, input }) => getStoreProject(ctx.deps, input.project, storeReaderOf(ctx))),
});
