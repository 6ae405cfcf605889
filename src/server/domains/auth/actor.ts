import type { PrivilegeName } from '../../../shared/schemas/privileges.ts';
import { AppError } from '../../errors.ts';

/** Who is calling: resolved once per request from the bearer token (or the session cookie). */
export type Actor =
  | { kind: 'visitor' }
  | {
      kind: 'user';
      userId: string;
      sessionId: string;
      /** false for API tokens (spec §3 Session.requireSession). */
      requireSession: boolean;
      isAdmin: boolean;
      privileges: ReadonlySet<PrivilegeName>;
    };

export type UserActor = Extract<Actor, { kind: 'user' }>;

export const visitor: Actor = { kind: 'visitor' };

export function requireUser(actor: Actor): UserActor {
  if (actor.kind !== 'user') throw new AppError('unauthorized', 'Sign in first');
  return actor;
}

/** Managing sessions, tokens and the account itself needs a browser session, not an API token. */
export function requireBrowserSession(actor: Actor): UserActor {
  const user = requireUser(actor);
  if (!user.requireSession) throw new AppError('insufficient_privileges', 'This needs a signed-in browser session, not an API token');
  return user;
}

export function requireAdmin(actor: Actor): UserActor {
  const user = requireUser(actor);
  if (!user.isAdmin) throw new AppError('insufficient_privileges', 'Only an instance administrator can do this');
  return user;
}

export function requirePrivilege(actor: Actor, privilege: PrivilegeName): UserActor {
  const user = requireUser(actor);
  if (!user.privileges.has(privilege)) throw new AppError('insufficient_privileges', `Privilege ${privilege} is required`);
  return user;
}
