import { Elysia } from 'elysia';
import type { Deps } from '../deps.ts';
import { resolveActor } from '../domains/auth/principal.ts';
import { bearerTokenOf } from './bearer-token.ts';

/** Resolves the caller from the bearer token; an unknown, revoked or expired token is wrong_auth. */
export function actorResolver(deps: Deps) {
  return new Elysia({ name: 'actor' }).resolve({ as: 'scoped' }, async ({ request }) => ({
    actor: await resolveActor(deps.db, bearerTokenOf(request.headers.get('authorization')), deps.config.sessionDays),
  }));
}
