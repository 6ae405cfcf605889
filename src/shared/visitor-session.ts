import type { Session } from './schemas/auth.ts';

/**
 * The session of a visitor (no one signed in), as the server answers it and the client falls back to.
 * Kept apart from the schemas so the client can use it without bundling zod.
 */
export function visitorSession(authRequired: boolean): Session {
  return {
    id: null,
    started: null,
    lastAuth: null,
    expiration: null,
    requireSession: true,
    userInfo: null,
    userPrivileges: [],
    authToken: null,
    authRequired,
  };
}
