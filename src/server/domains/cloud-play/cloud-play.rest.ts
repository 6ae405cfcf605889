import { Elysia } from 'elysia';
import {
  cloudConnectInput,
  cloudInitReplySchema,
  cloudPlayAvailabilitySchema,
  cloudSessionStateSchema,
  cloudSessionTokenInput,
  createdCloudSessionSchema,
  internalPackageAccessSchema,
  machineProvideInput,
  machineProvideReplySchema,
} from '../../../shared/schemas/cloud-play.ts';
import { okReplySchema } from '../../../shared/api/replies.ts';
import { packageIdSchema } from '../../../shared/schemas/packages.ts';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { actorResolver } from '../../http/actor.ts';
import { bearerTokenOf } from '../../http/bearer-token.ts';
import { getInternalPackageAccess, internalAccessParams } from './access.service.ts';
import { getCloudPlayAvailability } from './availability.service.ts';
import { provideMachine } from './provide.service.ts';
import { connectCloudSession, createCloudSession, getCloudSessionState, initCloudSession, stopCloudSession } from './sessions.service.ts';

const appUrlOf = (deps: Deps, request: Request) => deps.config.publicUrl ?? new URL(request.url).origin;
const noStore = (set: { headers: Record<string, string | number> }) => {
  set.headers['cache-control'] = 'no-store';
};

/**
 * Cloud play (spec §7): the player's session calls (the session token is their only access), the host
 * agent's provide and internal access calls (machine token as bearer), and the create call on a package.
 */
export function cloudPlayRoutes(deps: Deps) {
  const sessions = new Elysia({ tags: ['Cloud play'] })
    .get(
      '/cloud-play/availability',
      ({ set }) => {
        noStore(set);
        return getCloudPlayAvailability(deps);
      },
      { response: cloudPlayAvailabilitySchema, detail: { summary: 'Whether a host machine is online to take a session now (any caller): only a yes or no' } },
    )
    .post(
      '/cloud-play/session/init',
      async ({ body, request, set, server }) => {
        noStore(set);
        // Held up to CLOUD_PLAY_INIT_HOLD_SECONDS without a byte: longer than a shortened idle timeout may allow.
        server?.timeout(request, 0);
        // The reply is a JSON string holding the offer's JSON text (spec §3: "offer as JSON text").
        return Response.json(await initCloudSession(deps, body, request.signal), { headers: { 'cache-control': 'no-store' } });
      },
      {
        body: cloudSessionTokenInput,
        response: cloudInitReplySchema,
        detail: {
          summary: "The host agent's offer as JSON text ({type:'offer', sdp}), as soon as it is made; held up to CLOUD_PLAY_INIT_HOLD_SECONDS, then 503 timeout: ask again after 1 s",
        },
      },
    )
    .post(
      '/cloud-play/session/connect',
      ({ body, set }) => {
        noStore(set);
        return connectCloudSession(deps, body);
      },
      { body: cloudConnectInput, response: okReplySchema, detail: { summary: "The page's answer SDP to the offer; the machine connects" } },
    )
    .get(
      '/cloud-play/session',
      ({ query, set }) => {
        noStore(set);
        return getCloudSessionState(deps, query);
      },
      { query: cloudSessionTokenInput, response: cloudSessionStateSchema, detail: { summary: 'Where the session stands (status) and why it ended (reason)' } },
    )
    .post(
      '/cloud-play/session/stop',
      ({ body, set }) => {
        noStore(set);
        return stopCloudSession(deps, body);
      },
      { body: cloudSessionTokenInput, response: okReplySchema, detail: { summary: 'Ends the session (reason stopped); its machine is told' } },
    );

  const machines = new Elysia({ tags: ['Cloud play machines'] })
    .post(
      '/cloud-play/machine/provide',
      ({ body, request, set, server }) => {
        noStore(set);
        // Held up to CLOUD_PLAY_HEARTBEAT_SECONDS: longer than Bun's default idle timeout may allow.
        server?.timeout(request, 0);
        return provideMachine(deps, bearerTokenOf(request.headers.get('authorization')), body, request.signal);
      },
      {
        body: machineProvideInput,
        response: machineProvideReplySchema,
        detail: { summary: "The host agent's heartbeat and long poll: reports its sessions, answers its work (machine token as bearer)" },
      },
    )
    .get(
      '/internal/access/projects/:project/branches/:branch/versions/:version/packages/:package',
      ({ params, request, set }) => {
        noStore(set);
        return getInternalPackageAccess(deps, bearerTokenOf(request.headers.get('authorization')), params, appUrlOf(deps, request));
      },
      {
        params: internalAccessParams,
        response: internalPackageAccessSchema,
        detail: { summary: "Signed URLs of the archive and index of a package of a live session assigned to the calling machine ('-' for no branch or version)" },
      },
    );

  const create = new Elysia({ tags: ['Cloud play'] })
    .use(actorResolver(deps))
    .post(
      '/projects/:project/packages/:package/cloud-play',
      ({ actor, params, set }) => {
        noStore(set);
        return createCloudSession(deps, actor, params.project, params.package);
      },
      {
        params: z.object({ project: projectIdSchema, package: packageIdSchema }),
        response: createdCloudSessionSchema,
        detail: {
          summary: "A cloud-play session on a package tagged os:linux and arch:x86 (privilege cloud_play); ends the caller's previous one. 501 not_supported (details.reason no_machine_online) when no host machine is online",
        },
      },
    );

  return new Elysia().use(sessions).use(machines).use(create);
}
