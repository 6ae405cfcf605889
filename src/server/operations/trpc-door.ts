import type { AnyTRPCProcedure, TRPCMutationProcedure, TRPCQueryProcedure } from '@trpc/server';
import type { z } from 'zod';
import type { AnyRoute, HttpMethod, PathOf, PathParams, ShapeOf } from '../../shared/api/route.ts';
import { visitor } from '../domains/auth/actor.ts';
import { procedure, sessionlessProcedure } from '../trpc/init.ts';
import { isBoundOperation, isHandwritten, type Binding, type BoundOperation, type Handwritten } from './binding.ts';
import { trpcInputOf } from './inputs.ts';

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type BodyInput<R> = ShapeOf<R>['body'] extends z.ZodType
  ? ShapeOf<R>['bodyKey'] extends string
    ? { [K in ShapeOf<R>['bodyKey']]: z.input<ShapeOf<R>['body']> }
    : z.input<ShapeOf<R>['body']>
  : {};
type QueryInput<R> = ShapeOf<R>['query'] extends z.ZodType ? z.input<ShapeOf<R>['query']> : {};
type Fields<R> = Simplify<PathParams<PathOf<R>> & QueryInput<R> & BodyInput<R>>;
/** What a caller sends: the path's, the query's and the body's fields in one object; nothing when there are none. */
type TrpcInputOf<R> = keyof Fields<R> extends never ? void : Fields<R>;

type MethodOf<R> = R extends { readonly method: infer M extends HttpMethod } ? M : never;
type IsRead<R> = MethodOf<R> extends 'GET' ? true : ShapeOf<R>['read'];
type Def<R> = { input: TrpcInputOf<R>; output: ShapeOf<R>['reply'] extends z.ZodType ? z.infer<ShapeOf<R>['reply']> : never; meta: object };

/** The procedure derived from a row: a query for reads, a mutation otherwise. */
type ProcedureOf<R> = IsRead<R> extends true ? TRPCQueryProcedure<Def<R>> : TRPCMutationProcedure<Def<R>>;

type TrpcOf<O> = O extends BoundOperation<infer R, infer B> ? (B extends Handwritten<infer P> ? P : ProcedureOf<R>) : never;

/** The tRPC router's record of an operations tree: the same names; hand-written rows without a procedure left out. */
export type TrpcTreeOf<T> = {
  [K in keyof T as T[K] extends BoundOperation ? (TrpcOf<T[K]> extends undefined ? never : K) : K]: T[K] extends BoundOperation ? TrpcOf<T[K]> : TrpcTreeOf<T[K]>;
};

function derivedProcedure(route: AnyRoute, binding: Binding<AnyRoute>): AnyTRPCProcedure {
  const input = trpcInputOf(route, binding);
  const base = binding.actor === 'none' ? sessionlessProcedure : procedure;
  const withInput = input.schema ? base.input(input.schema) : base;
  const resolve = ({ ctx, input: given, signal }: { ctx: { deps: never; token?: string; cookieToken?: string; appUrl: string; actor?: unknown }; input: unknown; signal: AbortSignal | undefined }) => {
    const { params, query, body } = input.split(given);
    const context = { deps: ctx.deps, actor: ctx.actor ?? visitor, token: ctx.token, cookieToken: ctx.cookieToken, appUrl: ctx.appUrl, signal: signal ?? new AbortController().signal, params, query, body };
    return binding.run(context as never);
  };
  return route.read ? withInput.query(resolve as never) : withInput.mutation(resolve as never);
}

/** The router record of an operations tree, with the tree's names (hand-written procedures as they are). */
export function trpcRecordOf<T>(tree: T): TrpcTreeOf<T> {
  const record: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(tree as Record<string, unknown>)) {
    if (!isBoundOperation(node)) {
      record[key] = trpcRecordOf(node);
      continue;
    }
    if (isHandwritten(node.binding)) {
      if (node.binding.procedure !== undefined) record[key] = node.binding.procedure;
    } else record[key] = derivedProcedure(node.route, node.binding as Binding<AnyRoute>);
  }
  return record as never;
}

/** The tRPC paths ('cloudPlay.init') of the operations the server holds open: no idle timeout on their request. */
export function heldPathsOf(operations: readonly (BoundOperation & { name: string })[]): string[] {
  return operations.filter(({ binding }) => !isHandwritten(binding) && (binding as Binding<AnyRoute>).held).map(({ name }) => name);
}
