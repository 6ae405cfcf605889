import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { Elysia } from 'elysia';
import type { Deps } from '../deps.ts';
import { bearerTokenOf } from '../http/bearer-token.ts';
import type { CheckedBodyText } from '../http/body-guard.ts';
import { appUrlOf } from '../http/app-url.ts';
import { requestOriginOf } from '../http/request-origin.ts';
import { isCrossSiteRequest } from '../http/same-origin.ts';
import { sessionTokenFromCookie } from '../http/session-cookie.ts';
import { AppError } from '../errors.ts';
import { operationList } from '../operations/operations.ts';
import { heldPathsOf } from '../operations/trpc-door.ts';
import { appRouter } from './router.ts';

/**
 * tRPC v11 through its fetch adapter on a plain Elysia route (@elysiajs/trpc only speaks v10). The
 * body guard has already read and checked the body (JSON only, bounded, shallow): tRPC gets that text.
 */
export function trpcRoutes(deps: Deps) {
  const held = new Set(heldPathsOf(operationList()));
  return new Elysia({ name: 'trpc' }).all(
    '/trpc/*',
    ({ request, server, body }) => {
      // A held call (a long poll) in the request, batched or alone: as over REST, no idle timeout.
      const paths = new URL(request.url).pathname.slice('/trpc/'.length).split(',');
      if (paths.some((path) => held.has(path))) server?.timeout(request, 0);
      const checked = body as CheckedBodyText | null | undefined;
      const forwarded =
        request.method === 'GET' || request.method === 'HEAD'
          ? request
          : new Request(request.url, { method: request.method, headers: request.headers, body: checked?.checkedText ?? '', signal: request.signal });
      return fetchRequestHandler({
        endpoint: '/trpc',
        req: forwarded,
        router: appRouter,
        createContext: ({ resHeaders }) => ({
          deps,
          token: bearerTokenOf(request.headers.get('authorization')),
          cookieToken: sessionTokenFromCookie(request.headers.get('cookie')),
          origin: requestOriginOf(deps.config, request, server),
          appUrl: appUrlOf(deps.config, request),
          crossSite: isCrossSiteRequest(deps.config, request),
          resHeaders,
        }),
        responseMeta: ({ errors, data }) => {
          // A single failed call answers its catalogued status even where tRPC has no code for it (507).
          const cause = errors.length === 1 && data.length === 1 ? errors[0]!.cause : undefined;
          return cause instanceof AppError ? { status: cause.status } : {};
        },
      });
    },
    { detail: { hide: true } },
  );
}
