import { z } from 'zod';
import { okReplySchema } from '../../../shared/api/replies.ts';
import { routes } from '../../../shared/api/routes.ts';
import { createdInviteSchema, createInviteInput, inviteSchema, inviteTokenSchema, inviteViewSchema, joinedInviteSchema } from '../../../shared/schemas/projects.ts';
import { bindOperations } from '../../operations/binding.ts';
import { createInvite, deleteInvite, joinInvite, listInvites, viewInvite } from './invites.service.ts';

const byToken = z.object({ token: inviteTokenSchema });
const managing = ['wrong_auth', 'unauthorized', 'not_found', 'insufficient_privileges'] as const;

export const inviteOperations = bindOperations('Invites', routes.projects.invites, {
  list: { reply: z.array(inviteSchema), summary: "The project's invite links (createInvite)", errors: managing, run: ({ deps, actor, params }) => listInvites(deps, actor, params.project) },
  create: {
    body: createInviteInput,
    reply: createdInviteSchema,
    summary: 'Create an invite link; the token is shown once',
    errors: managing,
    run: ({ deps, actor, params, body }) => createInvite(deps, actor, params.project, body),
  },
  delete: {
    reply: okReplySchema,
    summary: 'Delete an invite link',
    errors: managing,
    run: async ({ deps, actor, params }) => {
      await deleteInvite(deps, actor, params.project, params.invite);
      return { ok: true };
    },
  },
  view: { query: byToken, reply: inviteViewSchema, summary: 'What an invite token invites to', errors: ['wrong_auth', 'not_found'], run: ({ deps, actor, query }) => viewInvite(deps, actor, query.token) },
  join: {
    query: byToken,
    reply: joinedInviteSchema,
    summary: 'Join the project of an invite token (pending when it needs approval)',
    errors: ['wrong_auth', 'unauthorized', 'not_found', 'already_member', 'limit_exceeded'],
    run: ({ deps, actor, query }) => joinInvite(deps, actor, query.token),
  },
});
