/**
 * Where the API lives. The browser uses relative URLs (same origin); component tests, whose fetch
 * is Bun's, point it at the test server.
 */
let apiOrigin = '';

export function setApiOrigin(origin: string): void {
  apiOrigin = origin.replace(/\/$/, '');
}

export function apiUrl(path: string): string {
  return `${apiOrigin}${path}`;
}

/** A failed REST call: the catalogued code when the body has one (spec §8), else the HTTP status. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly statusText: string;
  readonly body: unknown;

  constructor(code: string, message: string, status: number, statusText = '', body: unknown = undefined) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.statusText = statusText;
    this.body = body;
  }
}

let bearerToken: string | null = null;

/** The session's token, sent as bearer with every call; null for visitors (no header). */
export function setBearerToken(token: string | null): void {
  bearerToken = token;
}

export function authorizationHeaders(): Record<string, string> {
  return bearerToken ? { authorization: `Bearer ${bearerToken}` } : {};
}

/** JSON REST call under /api; throws ApiError on a non-2xx answer. */
export async function callApi<T>(path: string, init: { method?: string; json?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...authorizationHeaders() };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(apiUrl(`/api${path}`), {
    method: init.method ?? 'GET',
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
    credentials: 'same-origin',
    signal: init.signal,
  });
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  if (!response.ok) {
    const errorBody = body as { code?: unknown; message?: unknown } | undefined;
    const code = typeof errorBody?.code === 'string' ? errorBody.code : `http_${response.status}`;
    const message = typeof errorBody?.message === 'string' ? errorBody.message : response.statusText;
    throw new ApiError(code, message, response.status, response.statusText, body);
  }
  return body as T;
}
