import { z } from 'zod';
import { cloudConnectInput, cloudMachineIdInput, cloudSessionTokenInput, createCloudMachineInput } from '../../../shared/schemas/cloud-play.ts';
import { packageIdSchema } from '../../../shared/schemas/packages.ts';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { procedure, router, sessionlessProcedure } from '../../trpc/init.ts';
import { getCloudPlayAvailability } from './availability.service.ts';
import { createCloudMachine, listCloudMachines, revokeCloudMachine } from './machines.service.ts';
import { connectCloudSession, createCloudSession, getCloudSessionState, initCloudSession, stopCloudSession } from './sessions.service.ts';

/** The web client's cloud-play calls: the same services as REST (cloud-play.rest.ts). */
export const cloudPlayRouter = router({
  /** POST /projects/{p}/packages/{id}/cloud-play */
  create: procedure
    .input(z.object({ project: projectIdSchema, package: packageIdSchema }))
    .mutation(({ ctx, input }) => createCloudSession(ctx.deps, ctx.actor, input.project, input.package)),
  /** GET /cloud-play/availability: a machine is online to take a session now (any caller: no actor is resolved, as on REST). */
  availability: sessionlessProcedure.query(({ ctx }) => getCloudPlayAvailability(ctx.deps)),
  /** POST /cloud-play/session/init: the offer as JSON text (held a few seconds for it), or timeout (503) until it is ready. */
  init: procedure.input(cloudSessionTokenInput).mutation(({ ctx, input, signal }) => initCloudSession(ctx.deps, input, signal)),
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
