import type { z } from 'zod';
import type { AnyRoute, PathOf, PathParams, ShapeOf } from '../../shared/api/route.ts';
import type { ServerErrorCode } from '../../shared/errors.ts';
import type { Actor } from '../domains/auth/actor.ts';
import type { Deps } from '../deps.ts';

type QuerySchema<R> = ShapeOf<R>['query'] extends z.ZodType ? ShapeOf<R>['query'] : never;
type BodySchema<R> = ShapeOf<R>['body'] extends z.ZodType ? ShapeOf<R>['body'] : never;
type ReplySchema<R> = ShapeOf<R>['reply'] extends z.ZodType ? ShapeOf<R>['reply'] : never;

/** What a service is called with: the checked inputs of either door and who asks. */
type OperationContext<R> = {
  deps: Deps;
  /** The caller from the bearer token; a visitor for operations declared `actor: 'none'`. */
  actor: Actor;
  /** The bearer token as sent (a host machine's token for its own calls). */
  token: string | undefined;
  /** The session cookie's token (read by the store's cache to spare a fresh reader a stale page). */
  cookieToken: string | undefined;
  /** Where clients reach this app (http/app-url.ts), for absolute URLs in replies. */
  appUrl: string;
  /** Aborted when the caller goes away (held calls stop waiting). */
  signal: AbortSignal;
  params: PathParams<PathOf<R>>;
  query: ShapeOf<R>['query'] extends z.ZodType ? z.infer<QuerySchema<R>> : undefined;
  body: ShapeOf<R>['body'] extends z.ZodType ? z.infer<BodySchema<R>> : undefined;
};

/** The runtime schemas of a row: exactly the ones whose types the route table names. */
type SchemasOf<R> = (ShapeOf<R>['query'] extends z.ZodType ? { query: QuerySchema<R> } : { query?: undefined }) &
  (ShapeOf<R>['body'] extends z.ZodType ? { body: BodySchema<R> } : { body?: undefined }) & { reply: ReplySchema<R> };

/** A row bound to its service: both doors (REST and tRPC) are made from this. */
export type Binding<R> = SchemasOf<R> & {
  /** One line for the OpenAPI document. */
  summary: string;
  /** The catalogued refusals (spec §8) the service can answer, besides bad_param for input the schemas refuse. */
  errors: readonly ServerErrorCode[];
  /** 'caller' (the default) resolves the bearer token (an unknown one is wrong_auth); 'none' never reads it. */
  actor?: 'caller' | 'none';
  /** The Cache-Control of the REST reply (a URL that expires, a state that changes). */
  cache?: 'no-store' | 'no-cache';
  /** A call the server holds open (a long poll): no idle timeout on it. */
  held?: true;
  /** A path schema other than the shared one of each parameter's name (src/shared/schemas/path-params.ts). */
  params?: z.ZodObject;
  run(context: OperationContext<R>): unknown;
};

/**
 * An operation whose REST door is written by hand (cookies, raw or streamed bodies, files), saying why
 * in one line; `procedure` is its tRPC door when it has one, also by hand.
 */
export type Handwritten<P = undefined> = { handwritten: string; procedure: P };

export function handwritten(why: string): Handwritten;
export function handwritten<P>(why: string, procedure: P): Handwritten<P>;
export function handwritten<P>(why: string, procedure?: P): Handwritten<P | undefined> {
  return { handwritten: why, procedure };
}

type LeafKeys<G> = { [K in keyof G]: G[K] extends AnyRoute ? K : never }[keyof G];

export type BindingsOf<G> = { [K in LeafKeys<G>]: Binding<G[K]> | Handwritten<unknown> };

/** One row of the table with what the server does for it. */
export type BoundOperation<R extends AnyRoute = AnyRoute, B = unknown> = {
  readonly route: R;
  readonly tag: string;
  readonly binding: B;
};

export type BoundGroup<G, B extends BindingsOf<G>> = { [K in LeafKeys<G>]: G[K] extends AnyRoute ? BoundOperation<G[K], B[K]> : never };

/**
 * The rows of one group of the route table bound to their services, under an OpenAPI tag. Every row of
 * the group must be bound (a type error otherwise); subgroups are bound in their own files.
 */
export function bindOperations<G extends Record<string, unknown>, B extends BindingsOf<G>>(tag: string, group: G, bindings: B): BoundGroup<G, B> {
  const bound: Record<string, BoundOperation> = {};
  for (const [key, binding] of Object.entries(bindings)) {
    const route = group[key];
    if (!isRoute(route)) throw new TypeError(`${tag}: ${key} is not a row of its group`);
    bound[key] = { route, tag, binding };
  }
  return bound as never;
}

function isRoute(value: unknown): value is AnyRoute {
  return typeof value === 'object' && value !== null && 'method' in value && 'path' in value;
}

export function isBoundOperation(value: unknown): value is BoundOperation {
  return typeof value === 'object' && value !== null && 'route' in value && 'binding' in value;
}

export function isHandwritten(binding: unknown): binding is Handwritten<unknown> {
  return typeof binding === 'object' && binding !== null && 'handwritten' in binding;
}
