import { z } from 'zod';
import type { AnyRoute } from '../../shared/api/route.ts';
import { pathParamSchemas } from '../../shared/schemas/path-params.ts';
import type { Binding } from './binding.ts';

/** The `:name`s of a path, in order. */
function pathParamNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]!);
}

/** The path's schema: the binding's own, else each parameter's shared schema by its name. */
export function paramsSchemaOf(route: AnyRoute, binding: Binding<AnyRoute>): z.ZodObject | undefined {
  if (binding.params) return binding.params;
  const names = pathParamNames(route.path);
  if (names.length === 0) return undefined;
  const shape: Record<string, z.ZodType> = {};
  for (const name of names) {
    const schema = (pathParamSchemas as Record<string, z.ZodType>)[name];
    if (!schema) throw new TypeError(`${route.method} ${route.path}: no schema for the path parameter ${name} (src/shared/schemas/path-params.ts)`);
    shape[name] = schema;
  }
  return z.object(shape);
}

/** An object schema whose fields can be merged into another's (no refinement of the whole). */
function plainObject(schema: z.ZodType): z.ZodObject | undefined {
  return schema instanceof z.ZodObject && !schema._zod.def.checks?.length ? schema : undefined;
}

function keysOf(schema: z.ZodType | undefined): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

export type TrpcInput = {
  /** The procedure's input: the path's fields, the query's, and the body's (or the body under its key). */
  schema: z.ZodType | undefined;
  /** The checked input taken apart again into what the service gets. */
  split(input: unknown): { params: Record<string, unknown>; query: unknown; body: unknown };
};

/**
 * A tRPC input is one object: the path parameters, the query fields and the body's fields side by side
 * (a body that is not an object sits under the route's bodyKey). Fields must not collide.
 */
export function trpcInputOf(route: AnyRoute, binding: Binding<AnyRoute>): TrpcInput {
  const params = paramsSchemaOf(route, binding);
  const query = binding.query as z.ZodType | undefined;
  const body = binding.body as z.ZodType | undefined;
  const paramKeys = keysOf(params);
  const queryKeys = keysOf(query);
  const where = `${route.method} ${route.path}`;
  const shape: Record<string, z.ZodType> = { ...params?.shape };
  const wholes: z.ZodType[] = [];
  const add = (schema: z.ZodType | undefined) => {
    if (!schema) return;
    const plain = plainObject(schema);
    if (!plain) return void wholes.push(schema);
    for (const [key, field] of Object.entries(plain.shape)) {
      if (key in shape) throw new TypeError(`${where}: the input field ${key} comes twice`);
      shape[key] = field as z.ZodType;
    }
  };
  add(query);
  if (body && route.bodyKey) {
    if (route.bodyKey in shape) throw new TypeError(`${where}: the input field ${route.bodyKey} comes twice`);
    shape[route.bodyKey] = body;
  } else add(body);
  const fields = Object.keys(shape).length > 0 ? z.object(shape) : undefined;
  const schema = [...(fields ? [fields] : []), ...wholes].reduce<z.ZodType | undefined>((all, part) => (all ? z.intersection(all, part) : part), undefined);
  const taken = new Set([...paramKeys, ...queryKeys]);
  return {
    schema,
    split(input) {
      const record = (input ?? {}) as Record<string, unknown>;
      const pick = (keys: string[]) => Object.fromEntries(keys.filter((key) => key in record).map((key) => [key, record[key]]));
      const rest = () => Object.fromEntries(Object.entries(record).filter(([key]) => !taken.has(key)));
      return {
        params: pick(paramKeys),
        query: query ? pick(queryKeys) : undefined,
        body: body ? (route.bodyKey ? record[route.bodyKey] : rest()) : undefined,
      };
    },
  };
}
