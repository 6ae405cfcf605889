import { z } from 'zod';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { storeIndexQuery } from '../../../shared/schemas/project-media.ts';
import { procedure, router } from '../../trpc/init.ts';
import { getStoreIndex } from './store-index.service.ts';
import { getStoreProject } from './store.service.ts';

export const storeRouter = router({
  index: procedure.input(storeIndexQuery).query(({ ctx, input }) => getStoreIndex(ctx.deps, input)),
  project: procedure.input(z.object({ project: projectIdSchema })).query(({ ctx, input }) => getStoreProject(ctx.deps, input.project)),
});
