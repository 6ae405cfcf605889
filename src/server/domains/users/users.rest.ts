import { Elysia } from 'elysia';
import { z } from 'zod';
import { createApiTokenInput, createdApiTokenSchema, meSchema, patchMeInput, sessionIdSchema, sessionItemSchema } from '../../../shared/schemas/users.ts';
import type { Deps } from '../../deps.ts';
import { actorResolver } from '../../http/actor.ts';
import { createApiToken, listSessions, revokeSession } from './sessions.service.ts';
import { deleteMe, getMe, renameMe } from './users.service.ts';

const ok = z.object({ ok: z.boolean() });

export function usersRoutes(deps: Deps) {
  return new Elysia({ prefix: '/users/me', tags: ['Users'] })
    .use(actorResolver(deps))
    .get('', ({ actor }) => getMe(deps, actor), { response: meSchema, detail: { summary: 'The signed-in user' } })
    .patch('', ({ actor, body }) => renameMe(deps, actor, body), { body: patchMeInput, response: meSchema, detail: { summary: 'Rename the profile' } })
    .delete(
      '',
      async ({ actor }) => {
        await deleteMe(deps, actor);
        return { ok: true };
      },
      { response: ok, detail: { summary: 'Delete the account with its credentials, sessions and tokens' } },
    )
    .get('/sessions', ({ actor }) => listSessions(deps, actor), { response: z.array(sessionItemSchema), detail: { summary: 'Sessions and API tokens' } })
    .post('/sessions', ({ actor, body }) => createApiToken(deps, actor, body ?? {}), {
      body: createApiTokenInput,
      response: createdApiTokenSchema,
      detail: { summary: 'Create an API token (shown once)' },
    })
    .delete(
      '/sessions/:session',
      async ({ actor, params }) => {
        await revokeSession(deps, actor, params.session);
        return { ok: true };
      },
      { params: z.object({ session: sessionIdSchema }), response: ok, detail: { summary: 'Revoke a session or API token' } },
    );
}
