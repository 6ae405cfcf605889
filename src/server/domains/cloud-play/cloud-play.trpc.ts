import { z } from 'zod';
import { cloudConnectInput, cloudMachineIdInput, cloudSessionTokenInput, createCloudMachineInput } from '../../../shared/schemas/cloud-play.ts';
import { packageIdSchema } from '../../../shared/schemas/packages.ts';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { procedure, router } from '../../trpc/init.ts';
import { createCloudMachine, listCloudMachines, revokeCloudMachine } from './machines.service.ts';
import { connectCloudSession, createCloudSession, getCloudSessionState, initCloudSession, stopCloudSession } from './sessions.service.ts';

/** The web client's cloud-play calls: the same services as REST (cloud-play.rest.ts). */
export const cloudPlayRouter = router({
  /** POST /projects/{p}/packages/{id}/cloud-play */
  create: procedure
    .input(z.object({ project: projectIdSchema, package: packageIdSchema }))
    .mutation(({ ctx, input }) => createCloudSession(ctx.deps, ctx.actor, input.project, input.package)),
  /** POST /cloud-play/session/init: the offer as JSON text, or timeout (503) until it is ready. */
  init: procedure.input(cloudSessionTokenInput).mutation(({ ctx, input }) => initCloudSession(ctx.deps, input)),
  connect: procedure.input(cloudConnectInput).mutation(({ ctx, input }) => connectCloudSession(ctx.deps, input)),
  state: procedure.input(cloudSessionTokenInput).query(({ ctx, input }) => getCloudSessionState(ctx.deps, input)),
  stop: procedure.input(cloudSessionTokenInput).mutation(({ ctx, input }) => stopCloudSession(ctx.deps, input)),
});

/** admin.cloudMachines.*: instance administrators; the token of a new machine is in create's reply only. */
export const cloudMachinesAdminRouter = router({
  list: procedure.query(({ ctx }) => listCloudMachines(ctx.deps, ctx.actor)),
  create: procedure.input(createCloudMachineInput).mutation(({ ctx, input }) => createCloudMachine(ctx.deps, ctx.actor, input)),
  revoke: procedure.input(cloudMachineIdInput).mutation(({ ctx, input }) => revokeCloudMachine(ctx.deps, ctx.actor, input)),
});
