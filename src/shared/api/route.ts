import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Bytes sent as they are (application/octet-stream): a part upload. */
export type RawBody = Blob | ArrayBuffer | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>;

/**
 * What a route carries, as the types of the shared zod schemas (src/shared/schemas). Only their types
 * are used: the table costs no zod code in a bundle. `body: 'raw'` sends bytes; `reply: 'stream'` hands
 * the answer over as a Response (server-sent events, a .torrent) instead of parsed JSON.
 */
type RouteShape = {
  query: z.ZodType | undefined;
  body: z.ZodType | 'raw' | undefined;
  /** The tRPC input's field holding a body that is not an object (a boolean, a description); never for REST. */
  bodyKey: string | undefined;
  reply: z.ZodType | 'stream';
  /** A read sent as POST (a list of tokens in the body): a tRPC query, not a mutation. */
  read: boolean;
};

type EmptyShape = { query: undefined; body: undefined; bodyKey: undefined; reply: z.ZodUnknown; read: false };

/**
 * One REST route under the API root: method, path with `:params`, and (as types) its query, body and
 * reply. Built with get/post/put/patch/del(path).query<typeof schema>().body<...>().reply<...>().
 */
class Route<M extends HttpMethod = HttpMethod, P extends string = string, S extends RouteShape = RouteShape> {
  /** Never set: carries S for the type checker. */
  declare readonly shape?: S;

  constructor(
    readonly method: M,
    readonly path: P,
    /** 'stream': the caller gets the Response; 'json': its parsed body. */
    readonly replyKind: 'json' | 'stream' = 'json',
    /** Over tRPC, the input field of a body that is not an object (REST sends the body as it is). */
    readonly bodyKey: string | undefined = undefined,
    /** A read sent as POST: a tRPC query. */
    readonly read: boolean = method === 'GET',
  ) {}

  query<Q extends z.ZodType>(): Route<M, P, Omit<S, 'query'> & { query: Q }> {
    return this as never;
  }

  /** The JSON body; `key` names the tRPC input field of a body that is not an object. */
  body<B extends z.ZodType, K extends string | undefined = undefined>(key?: K): Route<M, P, Omit<S, 'body' | 'bodyKey'> & { body: B; bodyKey: K }> {
    return new Route(this.method, this.path, this.replyKind, key, this.read) as never;
  }

  /** A read sent as POST (its input does not fit a query): over tRPC, a query. */
  readOnly(): Route<M, P, Omit<S, 'read'> & { read: true }> {
    return new Route(this.method, this.path, this.replyKind, this.bodyKey, true) as never;
  }

  /** The body is bytes (octet-stream), not JSON. */
  raw(): Route<M, P, Omit<S, 'body'> & { body: 'raw' }> {
    return this as never;
  }

  reply<R extends z.ZodType>(): Route<M, P, Omit<S, 'reply'> & { reply: R }> {
    return this as never;
  }

  /** The reply is read by the caller (a stream of events, a file). */
  stream(): Route<M, P, Omit<S, 'reply'> & { reply: 'stream' }> {
    return new Route(this.method, this.path, 'stream', this.bodyKey, this.read) as never;
  }
}

export const get = <P extends string>(path: P) => new Route<'GET', P, EmptyShape>('GET', path);
export const post = <P extends string>(path: P) => new Route<'POST', P, EmptyShape>('POST', path);
export const put = <P extends string>(path: P) => new Route<'PUT', P, EmptyShape>('PUT', path);
export const patch = <P extends string>(path: P) => new Route<'PATCH', P, EmptyShape>('PATCH', path);
export const del = <P extends string>(path: P) => new Route<'DELETE', P, EmptyShape>('DELETE', path);

/** Any route: a caller's types come from the route it passes. */
export type AnyRoute = Route<HttpMethod, string, any>;

export type ShapeOf<R> = R extends { readonly shape?: infer S extends RouteShape } ? S : never;
export type PathOf<R> = R extends { readonly path: infer P extends string } ? P : never;

/** '/projects/:project/packages/:package' → { project: string; package: string }. */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : {};

/** What a caller sends as the query (z.input: defaults may be left out). */
export type QueryOf<R> = ShapeOf<R>['query'] extends z.ZodType ? z.input<ShapeOf<R>['query']> : undefined;
/** What a caller sends as the body (z.input), or bytes for a raw route. */
type BodyOf<R> = ShapeOf<R>['body'] extends 'raw' ? RawBody : ShapeOf<R>['body'] extends z.ZodType ? z.input<ShapeOf<R>['body']> : undefined;
/** What the call resolves with: the reply as the server produced it (z.infer), or the Response of a stream. */
export type ReplyOf<R> = ShapeOf<R>['reply'] extends 'stream' ? Response : ShapeOf<R>['reply'] extends z.ZodType ? z.infer<ShapeOf<R>['reply']> : never;

/** Optional when every field of it is. */
type Field<K extends string, T> = [T] extends [undefined] ? { [F in K]?: undefined } : {} extends T ? { [F in K]?: T } : { [F in K]: T };

/**
 * The path's parameters, or `url`: the absolute address the server gave for this route (an upload's
 * uploadUrl), used as it is.
 */
type Target<P extends string> = keyof PathParams<P> extends never
  ? { params?: undefined; url?: string }
  : { params: PathParams<P>; url?: undefined } | { params?: undefined; url: string };

export type RouteInput<R> = Target<PathOf<R>> & Field<'query', QueryOf<R>> & Field<'body', BodyOf<R>>;
