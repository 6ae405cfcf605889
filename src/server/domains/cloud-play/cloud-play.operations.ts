import { z } from 'zod';
import { okReplySchema } from '../../../shared/api/replies.ts';
import { routes } from '../../../shared/api/routes.ts';
import {
  cloudConnectInput,
  cloudInitReplySchema,
  cloudMachineSchema,
  cloudPlayAvailabilitySchema,
  cloudSessionStateSchema,
  cloudSessionTokenInput,
  createCloudMachineInput,
  createdCloudMachineSchema,
  createdCloudSessionSchema,
  internalPackageAccessSchema,
  machineProvideInput,
  machineProvideReplySchema,
} from '../../../shared/schemas/cloud-play.ts';
import { bindOperations } from '../../operations/binding.ts';
import { getInternalPackageAccess, internalAccessParams } from './access.service.ts';
import { getCloudPlayAvailability } from './availability.service.ts';
import { createCloudMachine, listCloudMachines, revokeCloudMachine } from './machines.service.ts';
import { provideMachine } from './provide.service.ts';
import { connectCloudSession, createCloudSession, getCloudSessionState, initCloudSession, stopCloudSession } from './sessions.service.ts';

/** A player's session calls: the session token in the input is the only access (no bearer is read). */
const bySessionToken = ['not_found'] as const;
/** The host agent's calls: its machine token as bearer. */
const byMachine = ['wrong_auth', 'not_found'] as const;

export const cloudPlayOperations = bindOperations('Cloud play', routes.cloudPlay, {
  create: {
    reply: createdCloudSessionSchema,
    summary:
      "A cloud-play session on a package tagged os:linux and arch:x86 (privilege cloud_play); ends the caller's previous one. 501 not_supported (details.reason no_machine_online) when no host machine is online",
    errors: ['wrong_auth', 'unauthorized', 'not_found', 'insufficient_privileges', 'not_supported', 'limit_exceeded'],
    cache: 'no-store',
    run: ({ deps, actor, params }) => createCloudSession(deps, actor, params.project, params.package),
  },
  availability: {
    reply: cloudPlayAvailabilitySchema,
    summary: 'Whether a host machine is online to take a session now (any caller): only a yes or no',
    errors: [],
    actor: 'none',
    cache: 'no-store',
    run: ({ deps }) => getCloudPlayAvailability(deps),
  },
  init: {
    body: cloudSessionTokenInput,
    // The reply is a JSON string holding the offer's JSON text (spec §3: "offer as JSON text").
    reply: cloudInitReplySchema,
    summary: "The host agent's offer as JSON text ({type:'offer', sdp}), as soon as it is made; held up to CLOUD_PLAY_INIT_HOLD_SECONDS, then 503 timeout: ask again after 1 s",
    errors: [...bySessionToken, 'timeout'],
    actor: 'none',
    cache: 'no-store',
    // Held up to CLOUD_PLAY_INIT_HOLD_SECONDS without a byte: longer than a shortened idle timeout may allow.
    held: true,
    run: ({ deps, body, signal }) => initCloudSession(deps, body, signal),
  },
  connect: {
    body: cloudConnectInput,
    reply: okReplySchema,
    summary: "The page's answer SDP to the offer; the machine connects",
    errors: bySessionToken,
    actor: 'none',
    cache: 'no-store',
    run: ({ deps, body }) => connectCloudSession(deps, body),
  },
  state: {
    query: cloudSessionTokenInput,
    reply: cloudSessionStateSchema,
    summary: 'Where the session stands (status) and why it ended (reason)',
    errors: bySessionToken,
    actor: 'none',
    cache: 'no-store',
    run: ({ deps, query }) => getCloudSessionState(deps, query),
  },
  stop: {
    body: cloudSessionTokenInput,
    reply: okReplySchema,
    summary: 'Ends the session (reason stopped); its machine is told',
    errors: bySessionToken,
    actor: 'none',
    cache: 'no-store',
    run: ({ deps, body }) => stopCloudSession(deps, body),
  },
  provide: {
    body: machineProvideInput,
    reply: machineProvideReplySchema,
    summary: "The host agent's heartbeat and long poll: reports its sessions, answers its work (machine token as bearer)",
    errors: byMachine,
    actor: 'none',
    cache: 'no-store',
    // Held up to CLOUD_PLAY_HEARTBEAT_SECONDS: longer than Bun's default idle timeout may allow.
    held: true,
    run: ({ deps, token, body, signal }) => provideMachine(deps, token, body, signal),
  },
  access: {
    params: internalAccessParams,
    reply: internalPackageAccessSchema,
    summary: "Signed URLs of the archive and index of a package of a live session assigned to the calling machine ('-' for no branch or version)",
    errors: byMachine,
    actor: 'none',
    cache: 'no-store',
    run: ({ deps, token, params, appUrl }) => getInternalPackageAccess(deps, token, params, appUrl),
  },
});

const admins = ['wrong_auth', 'unauthorized', 'insufficient_privileges'] as const;

/** admin.cloudMachines: the token of a new machine is in create's reply only. */
export const cloudMachineOperations = bindOperations('Admin', routes.admin.cloudMachines, {
  list: { reply: z.array(cloudMachineSchema), summary: 'The cloud-play host machines', errors: admins, run: ({ deps, actor }) => listCloudMachines(deps, actor) },
  create: {
    body: createCloudMachineInput,
    reply: createdCloudMachineSchema,
    summary: 'Add a host machine; its token is shown once',
    errors: admins,
    run: ({ deps, actor, body }) => createCloudMachine(deps, actor, body),
  },
  revoke: { reply: cloudMachineSchema, summary: 'Revoke a host machine: its token stops working', errors: [...admins, 'not_found'], run: ({ deps, actor, params }) => revokeCloudMachine(deps, actor, params) },
});
