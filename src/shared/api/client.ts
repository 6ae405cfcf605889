import { abortedError, ApiError, responseError } from './errors.ts';
import { noRetry, withRetries, type RetryPolicy } from './retry.ts';
import type { AnyRoute, RawBody, ReplyOf, RouteInput } from './route.ts';

export type ApiClientOptions = {
  /** The server's address (the API is under `{baseUrl}/api`); '' is the page's own origin. Read before each call. */
  baseUrl: string | (() => string);
  /** The bearer token, read before each call; null or undefined sends none (a visitor, a cookie session). */
  auth?: () => string | null | undefined;
  /** Bun's or the browser's fetch unless given (looked up at each call, so a test may swap it). */
  fetch?: typeof fetch;
  /** How every call is tried again (default: once, no retry); a call may change it. */
  retry?: Partial<RetryPolicy>;
  /** Aborts every call of this client (the command line's Ctrl-C). */
  signal?: AbortSignal;
};

export type CallOptions = {
  signal?: AbortSignal;
  /** Fields replacing the client's retry policy for this call (onRetry to show 'retrying'); false: one try. */
  retry?: Partial<RetryPolicy> | false;
  headers?: Record<string, string>;
  /** What the call is called in messages ('part 3'); by default 'PUT /uploads/p1' (never the query: it may hold a token). */
  label?: string;
};

type CallInput<R extends AnyRoute> = RouteInput<R> & CallOptions;
type CallArgs<R extends AnyRoute> = {} extends RouteInput<R> ? [input?: CallInput<R>] : [input: CallInput<R>];

export type ApiClient = {
  /**
   * One call of the route table (src/shared/api/routes.ts): the JSON reply, or the Response of a
   * stream route. Throws ApiError: the server's code, `http_<status>`, network, request_aborted,
   * trying_few_times_failed.
   */
  call<R extends AnyRoute>(route: R, ...args: CallArgs<R>): Promise<ReplyOf<R>>;
  /**
   * A file at a URL the API handed out (a signed download URL: it is its own authorisation, so no
   * bearer goes with it): the Response of a 2xx answer, else ApiError. Tried like the client's calls.
   */
  fetchFile(url: string, options?: CallOptions): Promise<Response>;
  /** An absolute URL: a relative one (a path the server gave) resolved against the server's address. */
  resolveUrl(url: string): string;
};

const paramPattern = /:([A-Za-z_][A-Za-z0-9_]*)/g;

function fillPath(path: string, params: Record<string, string> | undefined): string {
  return path.replace(paramPattern, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new TypeError(`${path}: the parameter ${name} is missing`);
    return encodeURIComponent(value);
  });
}

/** Query values as the server reads them: arrays as repeated keys, undefined and null left out. */
function withQuery(href: string, query: unknown): string {
  if (query === undefined || query === null) return href;
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  }
  const text = search.toString();
  return text ? `${href}${href.includes('?') ? '&' : '?'}${text}` : href;
}

function isRawBody(body: unknown): body is RawBody {
  return body instanceof Blob || body instanceof ArrayBuffer || body instanceof Uint8Array || body instanceof ReadableStream;
}

function combineSignals(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}

/** The path of an address for messages: never its query, which may hold an upload or job token. */
function pathForMessages(href: string): string {
  const end = href.search(/[?#]/);
  const withoutQuery = end < 0 ? href : href.slice(0, end);
  return withoutQuery.replace(/^[a-z]+:\/\/[^/]+/i, '');
}

/**
 * The one way the web client, the upload worker and the command line speak REST: auth, abort and
 * retry are the caller's choice; requests are built here only.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const doFetch = (input: string, init: RequestInit): Promise<Response> => (options.fetch ?? fetch)(input, init);
  const baseUrl = (): string => (typeof options.baseUrl === 'function' ? options.baseUrl() : options.baseUrl).replace(/\/+$/, '');

  function resolveUrl(url: string): string {
    const base = baseUrl() || globalThis.location?.href;
    if (!base) return url;
    return new URL(url, base).toString();
  }

  /** The call's fields over the client's; both hear onRetry and onTry (the client logs, the call shows a status). */
  function policyOf(retry: Partial<RetryPolicy> | false | undefined): Partial<RetryPolicy> {
    if (retry === false) return noRetry;
    const base = options.retry;
    if (!retry || !base) return { ...noRetry, ...base, ...retry };
    const both = <A extends unknown[]>(first?: (...args: A) => void, second?: (...args: A) => void) =>
      first && second ? (...args: A) => (first(...args), second(...args)) : (first ?? second);
    return { ...noRetry, ...base, ...retry, onRetry: both(base.onRetry, retry.onRetry), onTry: both(base.onTry, retry.onTry) };
  }

  /** One request, tried by the policy; resolves with a 2xx Response. */
  function send(method: string, href: string, init: { headers: Record<string, string>; body?: BodyInit; bearer: boolean }, call: CallOptions): Promise<Response> {
    const signal = combineSignals(options.signal, call.signal);
    const request = call.label ?? `${method} ${pathForMessages(href)}`;
    return withRetries(
      async () => {
        signal?.throwIfAborted();
        const headers = { ...init.headers, ...call.headers };
        const token = init.bearer ? options.auth?.() : undefined;
        if (token) headers.authorization = `Bearer ${token}`;
        let response: Response;
        try {
          response = await doFetch(href, { method, headers, body: init.body, signal, credentials: 'same-origin' });
        } catch (error) {
          if (signal?.aborted) throw abortedError(signal.reason, request);
          throw new ApiError('network', error instanceof Error ? error.message : String(error), { request, cause: error });
        }
        if (!response.ok) throw await responseError(response, request);
        return response;
      },
      policyOf(call.retry),
      signal,
    );
  }

  async function readJson(response: Response, request: string, signal: AbortSignal | undefined): Promise<unknown> {
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      if (signal?.aborted) throw abortedError(signal.reason, request);
      throw new ApiError('network', error instanceof Error ? error.message : String(error), { request, cause: error });
    }
    try {
      return text ? JSON.parse(text) : undefined;
    } catch (error) {
      throw new ApiError('unexpected_error', 'the reply is not JSON', { status: response.status, body: text, request, retryable: false, cause: error });
    }
  }

  return {
    async call(route, ...args) {
      const input = (args[0] ?? {}) as CallInput<AnyRoute> & { params?: Record<string, string>; url?: string; query?: unknown; body?: unknown };
      const path = input.url === undefined ? fillPath(route.path, input.params) : undefined;
      const href = withQuery(path === undefined ? resolveUrl(input.url!) : `${baseUrl()}/api${path}`, input.query);
      const headers: Record<string, string> = { accept: route.replyKind === 'json' ? 'application/json' : '*/*' };
      let body: BodyInit | undefined;
      if (isRawBody(input.body)) {
        headers['content-type'] = 'application/octet-stream';
        body = input.body as BodyInit;
      } else if (input.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(input.body);
      }
      // An address the server handed out (uploadUrl) carries its own authorisation: no bearer goes there.
      const bearer = input.url === undefined;
      const signal = combineSignals(options.signal, input.signal);
      const attempt = async () => {
        const response = await send(route.method, href, { headers, body, bearer }, { ...input, retry: false });
        return route.replyKind === 'stream' ? response : readJson(response, input.label ?? `${route.method} ${pathForMessages(href)}`, signal);
      };
      // Reading the body is part of a try: an answer cut off midway is tried again like a lost request.
      return withRetries(attempt, policyOf(input.retry), signal) as never;
    },

    fetchFile(url, call = {}) {
      return send('GET', resolveUrl(url), { headers: { accept: '*/*' }, bearer: false }, call);
    },

    resolveUrl,
  };
}
