import { z } from 'zod';
import { finalizePackageInput, packageIdSchema } from '../../../../shared/schemas/packages.ts';
import { projectIdSchema } from '../../../../shared/schemas/projects.ts';
import { procedure } from '../../../trpc/init.ts';
import { finalizePackage } from './finalize.service.ts';
import { resolvePackage } from './resolve.service.ts';

const byPackage = z.object({ project: projectIdSchema, package: packageIdSchema });

/** packages.* (uploads): finalize and resolve; part uploads are REST only (raw bytes). */
export const packageUploadProcedures = {
  finalize: procedure.input(byPackage.and(finalizePackageInput)).mutation(({ ctx, input }) => {
    const { project, package: packageId, ...body } = input;
    return finalizePackage(ctx.deps, project, packageId, body);
  }),
  resolve: procedure.input(byPackage).mutation(({ ctx, input }) => resolvePackage(ctx.deps, ctx.actor, input.project, input.package)),
};
