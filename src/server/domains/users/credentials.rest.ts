import { Elysia } from 'elysia';
import { z } from 'zod';
import { addPasswordInput, credentialQuery, credentialSchema, finishTokenQuery, patchCredentialInput } from '../../../shared/schemas/external-auth.ts';
import type { Deps } from '../../deps.ts';
import { actorResolver } from '../../http/actor.ts';
import { addPassword, linkCredential, listCredentials, patchCredential, unlinkCredential } from './credentials.service.ts';

const ok = z.object({ ok: z.boolean() });

export function credentialsRoutes(deps: Deps) {
  return new Elysia({ prefix: '/users/me', tags: ['Users'] })
    .use(actorResolver(deps))
    .get('/credentials', ({ actor }) => listCredentials(deps, actor), {
      response: z.array(credentialSchema),
      detail: { summary: "The user's ways to sign in: linked provider accounts and the password (provider 'password')" },
    })
    .post('/credentials', ({ actor, query }) => linkCredential(deps, actor, query), {
      query: finishTokenQuery,
      response: credentialSchema,
      detail: { summary: 'Link the provider account of a finished external sign-in of intent link' },
    })
    .delete(
      '/credentials',
      async ({ actor, query }) => {
        await unlinkCredential(deps, actor, query);
        return { ok: true };
      },
      { query: credentialQuery, response: ok, detail: { summary: 'Unlink a way to sign in (never the last one)' } },
    )
    .patch('/credentials', ({ actor, query, body }) => patchCredential(deps, actor, query, body), {
      query: credentialQuery,
      body: patchCredentialInput,
      response: credentialSchema,
      detail: { summary: "Show a linked account on the store pages of the user's projects (isPublic)" },
    })
    .post('/password', ({ actor, body }) => addPassword(deps, actor, body), {
      body: addPasswordInput,
      response: credentialSchema,
      detail: { summary: 'Add a password sign-in (name and password) to an account that has none' },
    });
}
