import type { z } from 'zod';
import { localHelperMethods, type LocalHelperFailure } from '../../shared/schemas/local-helper.ts';
import type { HelperContext } from '../context.ts';
import { HelperError, messageOf } from '../errors.ts';
import { isMethod, methodHandlers } from '../methods/index.ts';
import { bodyLimitBytes, parseJsonBody, readLimitedBody } from './body.ts';
import { callerOf, checkHost, corsHeaders, notTrusted, preflightHeaders, type Caller } from './guard.ts';

export type HelperServerOptions = {
  /** The port asked for (0: any free port, told by the returned server). */
  port: number;
  /** A page of an untrusted origin called (it was refused; logged, never asked about). */
  onUntrusted(origin: string): void;
};

function json(body: unknown, status: number, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers },
  });
}

function failure(error: HelperError, headers: Record<string, string>): Response {
  const body: LocalHelperFailure = { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
  return json(body, error.status, headers);
}

/** The first schema issue, naming its field (bad_param's details.field). */
function badParam(error: z.ZodError): HelperError {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join('.') || 'body';
  const message = issue?.code === 'unrecognized_keys' ? `unknown field ${issue.keys.join(', ')}` : (issue?.message ?? 'invalid');
  return new HelperError('bad_param', `${field}: ${message}`, { field, issues: error.issues.slice(0, 5).map((item) => ({ path: item.path.map(String), message: item.message })) });
}

/**
 * The protocol over HTTP (spec §7): `POST /?method=NAME` with a JSON body. In order: the Host must be
 * loopback (DNS rebinding), preflights are answered, a page's Origin must be trusted (else 403
 * not_trusted, readable by that page and nothing more), only POST runs a method, the body is bounded (size and depth) and checked by the method's
 * schema. Nothing changes state except a POSTed method.
 */
function createRequestHandler(ctx: HelperContext, options: { port: () => number; onUntrusted(origin: string): void }): (request: Request) => Promise<Response> {
  return async (request) => {
    let caller: Caller | undefined;
    try {
      checkHost(request, options.port());
      const state = await ctx.store.read();
      caller = callerOf(request, state.trusted_origins);
      if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: preflightHeaders(caller) });
      if (caller.kind === 'untrusted') {
        options.onUntrusted(caller.origin);
        throw notTrusted(caller.origin);
      }
      if (request.method !== 'POST') {
        throw new HelperError('method_not_allowed', `${request.method.slice(0, 16)} is not allowed: methods are called with POST /?method=NAME`, { allow: 'POST' });
      }
      const url = new URL(request.url);
      if (url.pathname !== '/') throw new HelperError('not_found', 'Methods are called on / (POST /?method=NAME)', { path: url.pathname.slice(0, 200) });
      const name = url.searchParams.get('method') ?? '';
      if (!isMethod(name)) throw new HelperError('unknown_method', `Unknown method ${JSON.stringify(name.slice(0, 64))}`, { method: name.slice(0, 64), methods: Object.keys(localHelperMethods) });
      const body = parseJsonBody(await readLimitedBody(request, bodyLimitBytes));
      const parsed = localHelperMethods[name].input.safeParse(body);
      if (!parsed.success) throw badParam(parsed.error);
      const handler = methodHandlers[name] as (ctx: HelperContext, input: unknown) => unknown;
      const reply = await handler(ctx, parsed.data);
      return json(reply, 200, corsHeaders(caller));
    } catch (error) {
      const headers = corsHeaders(caller);
      if (error instanceof HelperError) {
        if (error.code === 'method_not_allowed') headers.allow = 'POST, OPTIONS';
        return failure(error, headers);
      }
      ctx.log(`unexpected failure on ${request.method} ${request.url.slice(0, 200)}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return failure(new HelperError('unexpected_error', messageOf(error)), headers);
    }
  };
}

/** Listens on 127.0.0.1 only (never another interface). Throws when the port is taken. */
export function startHelperServer(ctx: HelperContext, options: HelperServerOptions) {
  let port = options.port;
  const handler = createRequestHandler(ctx, { port: () => port, onUntrusted: options.onUntrusted });
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: options.port,
    // A backstop under the stream check of readLimitedBody.
    maxRequestBodySize: 1024 * 1024,
    idleTimeout: 30,
    fetch: handler,
    error: (error) => {
      ctx.log(`server error: ${error.message}`);
      return json({ code: 'unexpected_error', message: 'The helper failed' }, 500, {});
    },
  });
  port = server.port ?? options.port;
  return server;
}
