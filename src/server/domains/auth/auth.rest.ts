import { Elysia } from 'elysia';
import { z } from 'zod';
import { passwordSignInInput, sessionSchema } from '../../../shared/schemas/auth.ts';
import type { Deps } from '../../deps.ts';
import { actorResolver } from '../../http/actor.ts';
import { requestOriginOf } from '../../http/request-origin.ts';
import { assertSameOrigin } from '../../http/same-origin.ts';
import { clearedSessionCookie, sessionCookie, sessionTokenFromCookie } from '../../http/session-cookie.ts';
import { bearerTokenOf } from '../../http/bearer-token.ts';
import { clearSession, getSession, signInWithPassword } from './auth.service.ts';

export function authRoutes(deps: Deps) {
  return new Elysia({ prefix: '/auth', tags: ['Auth'] })
    .post(
      '/password',
      async ({ body, request, server, set }) => {
        assertSameOrigin(deps.config, request);
        const signedIn = await signInWithPassword(deps, body, requestOriginOf(deps.config, request, server));
        set.headers['set-cookie'] = sessionCookie(deps.config, signedIn.token, new Date(signedIn.session.expiration!));
        return signedIn.session;
      },
      {
        body: passwordSignInInput,
        response: sessionSchema,
        detail: { summary: 'Register (intent register) or sign in (intent login, the default) with a user name and password' },
      },
    )
    .get(
      '/session',
      async ({ request, set }) => {
        const token = bearerTokenOf(request.headers.get('authorization')) ?? sessionTokenFromCookie(request.headers.get('cookie'));
        const session = await getSession(deps, token);
        if (token && !session.id) set.headers['set-cookie'] = clearedSessionCookie(deps.config);
        set.headers['cache-control'] = 'no-store';
        return session;
      },
      { response: sessionSchema, detail: { summary: 'The current session (from the bearer token or the session cookie)' } },
    )
    .use(actorResolver(deps))
    .post(
      '/clear',
      async ({ actor, request, set }) => {
        assertSameOrigin(deps.config, request);
        await clearSession(deps, actor, sessionTokenFromCookie(request.headers.get('cookie')));
        set.headers['set-cookie'] = clearedSessionCookie(deps.config);
        return { ok: true };
      },
      { response: z.object({ ok: z.boolean() }), detail: { summary: 'Sign out: ends the calling session' } },
    );
}
