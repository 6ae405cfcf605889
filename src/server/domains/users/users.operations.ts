import { z } from 'zod';
import { okReplySchema } from '../../../shared/api/replies.ts';
import { routes } from '../../../shared/api/routes.ts';
import { addPasswordInput, credentialQuery, credentialSchema, finishTokenQuery, patchCredentialInput } from '../../../shared/schemas/external-auth.ts';
import { createApiTokenInput, createdApiTokenSchema, meSchema, patchMeInput, sessionItemSchema } from '../../../shared/schemas/users.ts';
import { bindOperations } from '../../operations/binding.ts';
import { addPassword, linkCredential, listCredentials, patchCredential, unlinkCredential } from './credentials.service.ts';
import { createApiToken, listSessions, revokeSession } from './sessions.service.ts';
import { deleteMe, getMe, renameMe } from './users.service.ts';

const signedIn = ['wrong_auth', 'unauthorized'] as const;
/** Sessions, tokens, sign-in ways and the account itself need a browser session, not an API token. */
const browserSession = ['wrong_auth', 'unauthorized', 'insufficient_privileges'] as const;

export const userOperations = bindOperations('Users', routes.users, {
  me: { reply: meSchema, summary: 'The signed-in user', errors: signedIn, run: ({ deps, actor }) => getMe(deps, actor) },
  rename: { body: patchMeInput, reply: meSchema, summary: 'Rename the profile', errors: signedIn, run: ({ deps, actor, body }) => renameMe(deps, actor, body) },
  delete: {
    reply: okReplySchema,
    summary: 'Delete the account with its credentials, sessions and tokens',
    errors: browserSession,
    run: async ({ deps, actor }) => {
      await deleteMe(deps, actor);
      return { ok: true };
    },
  },
  credentials: {
    reply: z.array(credentialSchema),
    summary: "The user's ways to sign in: linked provider accounts and the password (provider 'password')",
    errors: signedIn,
    run: ({ deps, actor }) => listCredentials(deps, actor),
  },
  linkCredential: {
    query: finishTokenQuery,
    reply: credentialSchema,
    summary: 'Link the provider account of a finished external sign-in of intent link',
    errors: [...browserSession, 'not_found', 'name_conflict', 'timeout'],
    run: ({ deps, actor, query }) => linkCredential(deps, actor, query),
  },
  unlinkCredential: {
    query: credentialQuery,
    reply: okReplySchema,
    summary: 'Unlink a way to sign in (never the last one)',
    errors: [...browserSession, 'not_found', 'not_supported'],
    run: async ({ deps, actor, query }) => {
      await unlinkCredential(deps, actor, query);
      return { ok: true };
    },
  },
  patchCredential: {
    query: credentialQuery,
    body: patchCredentialInput,
    reply: credentialSchema,
    summary: "Show a linked account on the store pages of the user's projects (isPublic)",
    errors: [...signedIn, 'not_found'],
    run: ({ deps, actor, query, body }) => patchCredential(deps, actor, query, body),
  },
  addPassword: {
    body: addPasswordInput,
    reply: credentialSchema,
    summary: 'Add a password sign-in (name and password) to an account that has none',
    errors: [...browserSession, 'name_conflict', 'not_supported'],
    run: ({ deps, actor, body }) => addPassword(deps, actor, body),
  },
});

export const sessionOperations = bindOperations('Users', routes.users.sessions, {
  list: { reply: z.array(sessionItemSchema), summary: 'Sessions and API tokens', errors: browserSession, run: ({ deps, actor }) => listSessions(deps, actor) },
  create: {
    body: createApiTokenInput,
    reply: createdApiTokenSchema,
    summary: 'Create an API token (shown once)',
    errors: browserSession,
    run: ({ deps, actor, body }) => createApiToken(deps, actor, body ?? {}),
  },
  revoke: {
    reply: okReplySchema,
    summary: 'Revoke a session or API token',
    errors: [...browserSession, 'not_found'],
    run: async ({ deps, actor, params }) => {
      await revokeSession(deps, actor, params.session);
      return { ok: true };
    },
  },
});
