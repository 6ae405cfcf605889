import { Elysia } from 'elysia';
import { z } from 'zod';
import {
  createdInviteSchema,
  createInviteInput,
  inviteIdSchema,
  inviteSchema,
  inviteTokenSchema,
  inviteViewSchema,
  joinedInviteSchema,
  projectIdSchema,
} from '../../../shared/schemas/projects.ts';
import type { Deps } from '../../deps.ts';
import { actorResolver } from '../../http/actor.ts';
import { createInvite, deleteInvite, joinInvite, listInvites, viewInvite } from './invites.service.ts';

const ok = z.object({ ok: z.boolean() });
const params = z.object({ project: projectIdSchema });
const byToken = z.object({ token: inviteTokenSchema });

export function invitesRoutes(deps: Deps) {
  return new Elysia({ tags: ['Invites'] })
    .use(actorResolver(deps))
    .get('/projects/:project/invites', ({ actor, params }) => listInvites(deps, actor, params.project), {
      params,
      response: z.array(inviteSchema),
      detail: { summary: "The project's invite links (createInvite)" },
    })
    .post('/projects/:project/invites', ({ actor, params, body }) => createInvite(deps, actor, params.project, body), {
      params,
      body: createInviteInput,
      response: createdInviteSchema,
      detail: { summary: 'Create an invite link; the token is shown once' },
    })
    .delete(
      '/projects/:project/invites/:invite',
      async ({ actor, params }) => {
        await deleteInvite(deps, actor, params.project, params.invite);
        return { ok: true };
      },
      { params: params.extend({ invite: inviteIdSchema }), response: ok, detail: { summary: 'Delete an invite link' } },
    )
    .get('/invites', ({ actor, query }) => viewInvite(deps, actor, query.token), {
      query: byToken,
      response: inviteViewSchema,
      detail: { summary: 'What an invite token invites to' },
    })
    .post('/invites', ({ actor, query }) => joinInvite(deps, actor, query.token), {
      query: byToken,
      response: joinedInviteSchema,
      detail: { summary: 'Join the project of an invite token (pending when it needs approval)' },
    });
}
