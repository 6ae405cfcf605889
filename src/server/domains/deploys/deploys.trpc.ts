import { z } from 'zod';
import { createDeployCredentialInput, createDeploySiteInput, deployCredentialIdSchema, deploySiteIdSchema } from '../../../shared/schemas/deploy.ts';
import { deployVersionInput } from '../../../shared/schemas/deploy.ts';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { versionIdSchema } from '../../../shared/schemas/versions.ts';
import { deployVersion, listVersionDeploys } from './deploy-version.service.ts';
import { procedure, router } from '../../trpc/init.ts';
import {
  createDeployCredential,
  createDeploySite,
  deleteDeployCredential,
  deleteDeploySite,
  listAvailableSites,
  listDeployCredentials,
  listDeploySites,
} from './deploys.service.ts';

const byCredential = z.object({ credential: deployCredentialIdSchema });
const byProject = z.object({ project: projectIdSchema });
const byVersion = byProject.extend({ version: versionIdSchema });

/** deploys.credentials.* and deploys.sites.*: the REST routes' services (deploys.rest.ts). */
export const deploysRouter = router({
  credentials: router({
    list: procedure.query(({ ctx }) => listDeployCredentials(ctx.deps, ctx.actor)),
    create: procedure.input(createDeployCredentialInput).mutation(({ ctx, input }) => createDeployCredential(ctx.deps, ctx.actor, input)),
    delete: procedure.input(byCredential).mutation(({ ctx, input }) => deleteDeployCredential(ctx.deps, ctx.actor, input.credential)),
    availableSites: procedure.input(byCredential).query(({ ctx, input }) => listAvailableSites(ctx.deps, ctx.actor, input.credential)),
  }),
  sites: router({
    list: procedure.input(byProject).query(({ ctx, input }) => listDeploySites(ctx.deps, ctx.actor, input.project)),
    create: procedure
      .input(byProject.extend(createDeploySiteInput.shape))
      .mutation(({ ctx, input }) => createDeploySite(ctx.deps, ctx.actor, input.project, { credential: input.credential, site: input.site })),
    delete: procedure.input(byProject.extend({ site: deploySiteIdSchema })).mutation(async ({ ctx, input }) => {
      await deleteDeploySite(ctx.deps, ctx.actor, input.project, input.site);
      return { ok: true };
    }),
  }),
  /** deploys.version.start and deploys.version.list: POST .../versions/{version}/deploy and GET .../deploys. */
  version: router({
    start: procedure
      .input(byVersion.extend(deployVersionInput.shape))
      .mutation(({ ctx, input }) => deployVersion(ctx.deps, ctx.actor, input.project, input.version, { site: input.site, packages: input.packages })),
    list: procedure.input(byVersion).query(({ ctx, input }) => listVersionDeploys(ctx.deps, ctx.actor, input.project, input.version)),
  }),
});
