import { z } from 'zod';
import { createPackageInput, packageIdSchema, patchPackageInput } from '../../../../shared/schemas/packages.ts';
import { projectIdSchema } from '../../../../shared/schemas/projects.ts';
import { versionIdSchema } from '../../../../shared/schemas/versions.ts';
import { procedure } from '../../../trpc/init.ts';
import { createPackage, deletePackage, getPackage, listPackages, listVersionPackages, patchPackage } from './records.service.ts';

const byProject = z.object({ project: projectIdSchema });
const byPackage = byProject.extend({ package: packageIdSchema });

/** packages.* (records): the services of the records REST routes; uploads.trpc.ts adds finalize and resolve. */
export const packageRecordProcedures = {
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
  ofVersion: procedure
    .input(byProject.extend({ version: versionIdSchema }))
    .query(({ ctx, input }) => listVersionPackages(ctx.deps, ctx.actor, input.project, input.version)),
};
