import { z } from 'zod';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { procedure, router } from '../../trpc/init.ts';
import { getStoreProject } from './store.service.ts';

export const storeRouter = router({
  project: procedure.input(z.object({ project: projectIdSchema })).query(({ ctx, input }) => getStoreProject(ctx.deps, input.project)),
});
