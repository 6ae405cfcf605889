import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { Elysia } from 'elysia';
import type { Deps } from '../deps.ts';
import { bearerTokenOf } from '../domains/auth/tokens.ts';
import { requestOriginOf } from '../http/request-origin.ts';
import { sessionTokenFromCookie } from '../http/session-cookie.ts';
import { appRouter } from './router.ts';

/** tRPC v11 through its fetch adapter on a plain Elysia route (@elysiajs/trpc only speaks v10). */
export function trpcRoutes(deps: Deps) {
  return new Elysia({ name: 'trpc' }).all(
    '/trpc/*',
    ({ request, server }) =>
      fetchRequestHandler({
        endpoint: '/trpc',
        req: request,
        router: appRouter,
        createContext: ({ resHeaders }) => ({
          deps,
          token: bearerTokenOf(request.headers.get('authorization')),
          cookieToken: sessionTokenFromCookie(request.headers.get('cookie')),
          origin: requestOriginOf(deps.config, request, server),
          appUrl: deps.config.publicUrl ?? new URL(request.url).origin,
          resHeaders,
        }),
      }),
    { parse: 'none', detail: { hide: true } },
  );
}
