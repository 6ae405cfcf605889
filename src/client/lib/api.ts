import { createApiClient } from '../../shared/api/client.ts';

export { ApiError } from '../../shared/api/errors.ts';

/**
 * Where the API lives. The browser uses relative URLs (same origin); component tests, whose fetch
 * is Bun's, point it at the test server. apiUrl serves the tRPC link and the upload worker's config.
 */
let apiOrigin = '';

export function setApiOrigin(origin: string): void {
  apiOrigin = origin.replace(/\/$/, '');
}

export function apiUrl(path: string): string {
  return `${apiOrigin}${path}`;
}

let bearerToken: string | null = null;

/** The session's token, sent as bearer with every call; null for visitors (no header). */
export function setBearerToken(token: string | null): void {
  bearerToken = token;
}

export function authorizationHeaders(): Record<string, string> {
  return bearerToken ? { authorization: `Bearer ${bearerToken}` } : {};
}

/**
 * The web client's REST client (src/shared/api): relative URLs in the browser, the session's bearer
 * token read before each call, one try per call (spec §9's retries are the uploads', in their worker).
 */
export const api = createApiClient({ baseUrl: () => apiOrigin, auth: () => bearerToken });
