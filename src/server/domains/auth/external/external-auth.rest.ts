import { Elysia } from 'elysia';
import { sessionSchema } from '../../../../shared/schemas/auth.ts';
import {
  externalAuthFinishQuery,
  externalAuthStartQuery,
  finishedExternalAuthSchema,
  finishTokenQuery,
  startedExternalAuthSchema,
} from '../../../../shared/schemas/external-auth.ts';
import type { Deps } from '../../../deps.ts';
import { actorResolver } from '../../../http/actor.ts';
import { queryText } from '../../../http/query-text.ts';
import { requestOriginOf } from '../../../http/request-origin.ts';
import { assertSameOrigin } from '../../../http/same-origin.ts';
import { sessionCookie } from '../../../http/session-cookie.ts';
import { finishExternalAuth, registerExternal, signInExternal, startExternalAuth } from './external-auth.service.ts';

const finishQuery = externalAuthFinishQuery.extend({ code: queryText(externalAuthFinishQuery.shape.code) });

export function externalAuthRoutes(deps: Deps) {
  const appUrlOf = (request: Request) => deps.config.publicUrl ?? new URL(request.url).origin;
  return (
    new Elysia({ tags: ['Auth'] })
      // Before the actor resolver: a stale bearer token must not stop a sign-in.
      .post('/auth/external/finish', ({ query }) => finishExternalAuth(deps, query), {
        query: finishQuery,
        response: finishedExternalAuthSchema,
        detail: { summary: 'Finish an external sign-in: the provider confirms the code; answers a single-use token for the next step' },
      })
      .post(
        '/users/auth',
        async ({ query, request, server, set }) => {
          assertSameOrigin(deps.config, request);
          const signedIn = await signInExternal(deps, query, requestOriginOf(deps.config, request, server));
          set.headers['set-cookie'] = sessionCookie(deps.config, signedIn.token, new Date(signedIn.session.expiration!));
          return signedIn.session;
        },
        { query: finishTokenQuery, response: sessionSchema, detail: { summary: 'Sign in with a finished external sign-in whose account exists (hasUser)' } },
      )
      .post(
        '/users/register',
        async ({ query, request, server, set }) => {
          assertSameOrigin(deps.config, request);
          const signedIn = await registerExternal(deps, query, requestOriginOf(deps.config, request, server));
          set.headers['set-cookie'] = sessionCookie(deps.config, signedIn.token, new Date(signedIn.session.expiration!));
          return signedIn.session;
        },
        { query: finishTokenQuery, response: sessionSchema, detail: { summary: 'Register with a finished external sign-in (intent register, no account yet) and sign in' } },
      )
      .use(actorResolver(deps))
      .post('/auth/external/start', ({ actor, query, request }) => startExternalAuth(deps, actor, query, appUrlOf(request)), {
        query: externalAuthStartQuery,
        response: startedExternalAuthSchema,
        detail: { summary: 'Start an external sign-in (intent login, register, or link for a signed-in browser session): where to send the browser' },
      })
  );
}
