import type { AnyRoute } from '../../shared/api/route.ts';
import { routes } from '../../shared/api/routes.ts';
import { Elysia, type BodyHandler } from 'elysia';
import type { Config } from '../config.ts';
import { bodyIsEmpty, isJsonContentType, notJsonBody, readJsonBody, readJsonText } from './json-body.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

/** Every JSON body is at most this large unless its route says otherwise. */
const defaultJsonBodyLimit = 1 * MiB;

/** What a request body may be on one route. */
export type BodyPolicy =
  /** A stream the handler reads itself, with its own limits (package parts). */
  | { kind: 'raw' }
  /** JSON, bounded and depth-checked, parsed here. */
  | { kind: 'json'; limit: number }
  /** JSON, bounded and depth-checked, handed on as text (tRPC parses it itself). */
  | { kind: 'json-text'; limit: number };

/** A body Elysia must leave alone: the handler streams it. */
const rawBody = Symbol('raw body');
/** The checked text of a tRPC call's body. */
export type CheckedBodyText = { checkedText: string };

/**
 * A finalize lists every part (≈ 80 bytes each as JSON): enough for a 1 TiB package at the configured
 * part size, never more than the schema's million parts.
 */
function finalizeBodyLimit(config: Config): number {
  const parts = Math.min(1_000_000, Math.ceil(2 ** 40 / config.uploads.partSize));
  return Math.max(defaultJsonBodyLimit, parts * 100 + 64 * KiB);
}

/**
 * A host agent's provide call may carry an offer (≤ 64 KiB of SDP) for each of its sessions (≤ 64): a
 * few MiB at most, in practice a few KiB. Player SDP bodies (connect) fit the default.
 */
const provideBodyLimit = 5 * MiB;

/** The routes whose bodies differ from the default; everything else is JSON up to 1 MiB. */
function bodyPolicyOf(config: Config, method: string, route: string): BodyPolicy {
  const is = (row: AnyRoute) => method === row.method && route === `/api${row.path}`;
  if (is(routes.packages.uploadPart) || is(routes.contentImages.uploadPart)) return { kind: 'raw' };
  if (is(routes.packages.finalize)) return { kind: 'json', limit: finalizeBodyLimit(config) };
  if (is(routes.cloudPlay.provide)) return { kind: 'json', limit: provideBodyLimit };
  if (route === '/trpc/*') return { kind: 'json-text', limit: finalizeBodyLimit(config) };
  return { kind: 'json', limit: defaultJsonBodyLimit };
}

/** tRPC's procedures get the default limit too, except the one that takes a part list (batches: 'a,b'). */
function trpcBodyLimit(config: Config, procedurePaths: string): number {
  return procedurePaths.split(',').includes('packages.finalize') ? finalizeBodyLimit(config) : defaultJsonBodyLimit;
}

/**
 * Every request body goes through here before any schema sees it: JSON only (415 otherwise, which also
 * shuts out cross-site HTML forms), bounded while streaming (413), nesting depth checked in one pass
 * (400 'Invalid `body`'). Part uploads are the only raw bodies.
 */
export function bodyGuard(config: Config) {
  const guard = async ({ request, route, path }: { request: Request; route: string; path: string }) => {
    const policy = bodyPolicyOf(config, request.method, route);
    if (policy.kind === 'raw') return rawBody;
    if (!isJsonContentType(request.headers.get('content-type'))) {
      if (await bodyIsEmpty(request)) return null;
      throw notJsonBody();
    }
    if (policy.kind === 'json-text') {
      const procedures = path.slice('/trpc/'.length);
      return { checkedText: await readJsonText(request, trpcBodyLimit(config, procedures)) } satisfies CheckedBodyText;
    }
    return readJsonBody(request, policy.limit);
  };
  // 'json' after the guard is never reached (the guard always answers); it tells the OpenAPI generator
  // that bodies are JSON, which it cannot learn from a function.
  return new Elysia({ name: 'body-guard' }).onParse({ as: 'global' }, [guard, 'json'] as unknown as BodyHandler<{ params: Record<string, string | undefined> }>);
}
