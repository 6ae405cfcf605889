import type { Deps } from '../deps.ts';
import { visitor, type Actor } from '../domains/auth/actor.ts';
import { actorOf, findLiveSession } from '../domains/auth/principal.ts';
import { bearerTokenOf } from './bearer-token.ts';
import { sessionTokenFromCookie } from './session-cookie.ts';

/**
 * Who asks for an app page: the session of its cookie (a browser) or bearer token, else a visitor.
 * An unknown or expired one is a visitor too (the page then shows what a visitor sees); read only, so
 * a page load never extends a session.
 */
export async function pageCaller(deps: Deps, request: Request): Promise<Actor> {
  const token = sessionTokenFromCookie(request.headers.get('cookie')) ?? bearerTokenOf(request.headers.get('authorization'));
  if (!token || token.length > 512) return visitor;
  const found = await findLiveSession(deps.db, token);
  return found ? actorOf(found) : visitor;
}
