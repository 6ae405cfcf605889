import { Elysia, type AnyElysia } from 'elysia';
import type { z } from 'zod';
import type { AnyRoute } from '../../shared/api/route.ts';
import { visitor } from '../domains/auth/actor.ts';
import { resolveActor } from '../domains/auth/principal.ts';
import type { Deps } from '../deps.ts';
import { appUrlOf } from '../http/app-url.ts';
import { bearerTokenOf } from '../http/bearer-token.ts';
import { queryAsSent } from '../http/query-as-sent.ts';
import { sessionTokenFromCookie } from '../http/session-cookie.ts';
import { isHandwritten, type Binding, type BoundOperation } from './binding.ts';
import { errorRepliesOf } from './error-replies.ts';
import { paramsSchemaOf } from './inputs.ts';

type Served = { request: Request; params: Record<string, string>; query: unknown; body: unknown; set: { headers: Record<string, string | number> }; server: { timeout(request: Request, seconds: number): void } | null };

/** The REST door of one bound row: Elysia checks the inputs against the binding's schemas, then the service runs. */
function restRoute(deps: Deps, app: AnyElysia, route: AnyRoute, tag: string, binding: Binding<AnyRoute>): AnyElysia {
  const handler = async ({ request, params, query, body, set, server }: Served) => {
    if (binding.held) server?.timeout(request, 0);
    if (binding.cache) set.headers['cache-control'] = binding.cache;
    const token = bearerTokenOf(request.headers.get('authorization'));
    const actor = binding.actor === 'none' ? visitor : await resolveActor(deps.db, token, deps.config.sessionDays);
    const cookieToken = sessionTokenFromCookie(request.headers.get('cookie'));
    const reply = await binding.run({ deps, actor, token, cookieToken, appUrl: appUrlOf(deps.config, request), signal: request.signal, params, query, body } as never);
    // A reply that is a JSON string (an offer's text) is sent as JSON, not as plain text.
    return typeof reply === 'string' ? Response.json(reply, { headers: binding.cache ? { 'cache-control': binding.cache } : {} }) : reply;
  };
  const params = paramsSchemaOf(route, binding);
  const hooks = {
    ...(params ? { params } : {}),
    ...(binding.query ? { query: binding.query as z.ZodType, transform: queryAsSent } : {}),
    ...(binding.body ? { body: binding.body as z.ZodType } : {}),
    // The reply and, for the OpenAPI document, the refusals it can answer (error-replies.ts).
    response: { 200: binding.reply as z.ZodType, ...errorRepliesOf(binding.errors, binding.actor !== 'none') },
    detail: { summary: binding.summary, tags: [tag] },
  };
  return app.route(route.method, route.path, handler as never, hooks as never);
}

/** Every derived REST route of the operations (hand-written ones are mounted by their own files). */
export function derivedRestRoutes(deps: Deps, operations: readonly BoundOperation[]): AnyElysia {
  let app: AnyElysia = new Elysia({ name: 'derived-operations' });
  for (const { route, tag, binding } of operations) {
    if (!isHandwritten(binding)) app = restRoute(deps, app, route, tag, binding as Binding<AnyRoute>);
  }
  return app;
}
