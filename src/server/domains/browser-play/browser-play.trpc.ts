import { z } from 'zod';
import { branchIdSchema } from '../../../shared/schemas/branches.ts';
import { packageIdSchema } from '../../../shared/schemas/packages.ts';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { procedure, router } from '../../trpc/init.ts';
import { getPackagePlayUrl, getStorePackagePlayUrl } from './browser-play.service.ts';

export const browserPlayRouter = router({
  /** GET /projects/{p}/packages/{id}/play */
  packageUrl: procedure
    .input(z.object({ project: projectIdSchema, package: packageIdSchema }))
    .query(({ ctx, input }) => getPackagePlayUrl(ctx.deps, ctx.actor, input.project, input.package)),
  /** GET /store/projects/{p}/branches/{b}/packages/{id}/play */
  storePackageUrl: procedure
    .input(z.object({ project: projectIdSchema, branch: branchIdSchema, package: packageIdSchema }))
    .query(({ ctx, input }) => getStorePackagePlayUrl(ctx.deps, input.project, input.branch, input.package)),
});
