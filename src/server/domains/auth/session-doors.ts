import { Elysia, type AnyElysia } from 'elysia';
import { z } from 'zod';
import { routes } from '../../../shared/api/routes.ts';
import { passwordSignInInput, sessionSchema } from '../../../shared/schemas/auth.ts';
import { finishTokenQuery } from '../../../shared/schemas/external-auth.ts';
import type { Config } from '../../config.ts';
import type { Deps } from '../../deps.ts';
import { actorResolver } from '../../http/actor.ts';
import { bearerTokenOf } from '../../http/bearer-token.ts';
import { requestOriginOf } from '../../http/request-origin.ts';
import { assertSameOrigin } from '../../http/same-origin.ts';
import { clearedSessionCookie, sessionCookie, sessionTokenFromCookie } from '../../http/session-cookie.ts';
import { cookieClearingProcedure, cookieSettingProcedure, sessionlessProcedure } from '../../trpc/init.ts';
import type { RequestOrigin, SignedIn } from './auth.service.ts';
import { clearSession, getSession, signInWithPassword } from './auth.service.ts';
import { registerExternal, signInExternal } from './external/external-auth.service.ts';

/**
 * The operations that set or clear the session cookie, both doors by hand (the cookie is a header of
 * the reply, and another site's page may never set it): each sign-in is one function of the input and
 * the request's origin, used by REST and tRPC alike.
 */
const signIns = {
  password: { input: passwordSignInInput, from: 'body', signIn: signInWithPassword, summary: 'Register (intent register) or sign in (intent login, the default) with a user name and password' },
  signInExternal: { input: finishTokenQuery, from: 'query', signIn: signInExternal, summary: 'Sign in with a finished external sign-in whose account exists (hasUser)' },
  registerExternal: { input: finishTokenQuery, from: 'query', signIn: registerExternal, summary: 'Register with a finished external sign-in (intent register, no account yet) and sign in' },
} as const;

type SignInName = keyof typeof signIns;

function signedInCookie(config: Config, signedIn: SignedIn): string {
  return sessionCookie(config, signedIn.token, new Date(signedIn.session.expiration!));
}

/** The tRPC procedure of a sign-in: the session in the reply, its token in the cookie. */
function signInProcedure<N extends SignInName>(name: N) {
  const { input, signIn } = signIns[name];
  return cookieSettingProcedure.input(input).mutation(async ({ ctx, input: given }) => {
    const signedIn = await signIn(ctx.deps, given as never, ctx.origin);
    ctx.resHeaders.append('set-cookie', signedInCookie(ctx.deps.config, signedIn));
    return signedIn.session;
  });
}

export const sessionProcedures = {
  session: sessionlessProcedure.query(({ ctx }) => getSession(ctx.deps, ctx.token ?? ctx.cookieToken)),
  password: signInProcedure('password'),
  signInExternal: signInProcedure('signInExternal'),
  registerExternal: signInProcedure('registerExternal'),
  clear: cookieClearingProcedure.mutation(async ({ ctx }) => {
    await clearSession(ctx.deps, ctx.actor, ctx.cookieToken);
    ctx.resHeaders.append('set-cookie', clearedSessionCookie(ctx.deps.config));
    return { ok: true };
  }),
};

/** The REST doors of the same five operations. */
export function sessionRoutes(deps: Deps) {
  const origin = (request: Request, server: Parameters<typeof requestOriginOf>[2]): RequestOrigin => requestOriginOf(deps.config, request, server);
  let app: AnyElysia = new Elysia({ tags: ['Auth'] }).get(
    routes.auth.session.path,
    async ({ request, set }) => {
      const token = bearerTokenOf(request.headers.get('authorization')) ?? sessionTokenFromCookie(request.headers.get('cookie'));
      const session = await getSession(deps, token);
      if (token && !session.id) set.headers['set-cookie'] = clearedSessionCookie(deps.config);
      set.headers['cache-control'] = 'no-store';
      return session;
    },
    { response: sessionSchema, detail: { summary: 'The current session (from the bearer token or the session cookie)' } },
  );
  for (const name of Object.keys(signIns) as SignInName[]) {
    const { input, from, signIn, summary } = signIns[name];
    const route = routes.auth[name];
    const handler = async ({ body, query, request, server, set }: { body: unknown; query: unknown; request: Request; server: Parameters<typeof requestOriginOf>[2]; set: { headers: Record<string, string | number> } }) => {
        assertSameOrigin(deps.config, request);
        const signedIn = await signIn(deps, (from === 'body' ? body : query) as never, origin(request, server));
        set.headers['set-cookie'] = signedInCookie(deps.config, signedIn);
        return signedIn.session;
    };
    app = app.post(route.path, handler as never, { ...(from === 'body' ? { body: input } : { query: input }), response: sessionSchema, detail: { summary } } as never);
  }
  return app.use(actorResolver(deps)).post(
    routes.auth.clear.path,
    async ({ actor, request, set }) => {
      assertSameOrigin(deps.config, request);
      await clearSession(deps, actor, sessionTokenFromCookie(request.headers.get('cookie')));
      set.headers['set-cookie'] = clearedSessionCookie(deps.config);
      return { ok: true };
    },
    { response: z.object({ ok: z.boolean() }), detail: { summary: 'Sign out: ends the calling session' } },
  );
}
