import { z } from 'zod';
import { createPackageInput, finalizePackageInput, packageIdSchema, patchPackageInput } from '../../../shared/schemas/packages.ts';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { versionIdSchema } from '../../../shared/schemas/versions.ts';
import { procedure, router } from '../../trpc/init.ts';
import { finalizePackage } from './finalize.service.ts';
import { createPackage, deletePackage, getPackage, listPackages, listVersionPackages, patchPackage } from './packages.service.ts';
import { resolvePackage } from './resolve.service.ts';

const byProject = z.object({ project: projectIdSchema });
const byPackage = byProject.extend({ package: packageIdSchema });

/** packages.* over the same services as the REST routes (part uploads are REST only: raw bytes). */
export const packagesRouter = router({
  list: procedure.input(byProject).query(({ ctx, input }) => listPackages(ctx.deps, ctx.actor, input.project)),
  create: procedure
    .input(byProject.and(createPackageInput))
    .mutation(({ ctx, input }) => {
      const { project, ...body } = input;
      return createPackage(ctx.deps, ctx.actor, project, body, ctx.appUrl);
    }),
  get: procedure.input(byPackage).query(({ ctx, input }) => getPackage(ctx.deps, ctx.actor, input.project, input.package)),
  patch: procedure.input(byPackage.and(patchPackageInput)).mutation(({ ctx, input }) => {
    const { project, package: packageId, ...body } = input;
    return patchPackage(ctx.deps, ctx.actor, project, packageId, body);
  }),
  delete: procedure.input(byPackage).mutation(async ({ ctx, input }) => {
    await deletePackage(ctx.deps, ctx.actor, input.project, input.package);
    return { ok: true };
  }),
  finalize: procedure.input(byPackage.and(finalizePackageInput)).mutation(({ ctx, input }) => {
    const { project, package: packageId, ...body } = input;
    return finalizePackage(ctx.deps, project, packageId, body);
  }),
  resolve: procedure.input(byPackage).mutation(({ ctx, input }) => resolvePackage(ctx.deps, ctx.actor, input.project, input.package)),
  ofVersion: procedure
    .input(byProject.extend({ version: versionIdSchema }))
    .query(({ ctx, input }) => listVersionPackages(ctx.deps, ctx.actor, input.project, input.version)),
});
