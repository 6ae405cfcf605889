import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { privilegeNames, type PrivilegeName } from '../../../shared/schemas/privileges.ts';
import type { Database } from '../../db/client.ts';
import { sessions, userPrivileges, users } from '../../db/schema/index.ts';
import { AppError } from '../../errors.ts';
import type { Actor, UserActor } from './actor.ts';
import { hashToken } from './tokens.ts';

/** Use refreshes last-used (and a browser session's expiry) at most this often, to spare writes. */
const touchEveryMs = 5 * 60 * 1000;

export type SessionRow = typeof sessions.$inferSelect;

export async function privilegesOf(db: Database, userId: string, isAdmin: boolean): Promise<PrivilegeName[]> {
  if (isAdmin) return [...privilegeNames];
  const rows = await db.select({ privilege: userPrivileges.privilege }).from(userPrivileges).where(eq(userPrivileges.userId, userId));
  return privilegeNames.filter((name) => rows.some((row) => row.privilege === name));
}

/** Finds the live session of a bearer token; undefined when unknown, revoked or expired. */
export async function findLiveSession(db: Database, token: string) {
  const [row] = await db
    .select({ session: sessions, isAdmin: users.isAdmin, userTitle: users.title })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, hashToken(token)), or(isNull(sessions.expiresAt), gt(sessions.expiresAt, sql`now()`))));
  return row;
}

export async function resolveActor(db: Database, token: string | undefined, sessionDays: number): Promise<Actor> {
  if (!token) return { kind: 'visitor' };
  const found = await findLiveSession(db, token);
  if (!found) throw new AppError('wrong_auth', 'The session or API token is unknown, revoked or expired');
  await touchSession(db, found.session, sessionDays);
  return actorOf(found.session, found.isAdmin, await privilegesOf(db, found.session.userId, found.isAdmin));
}

export function actorOf(session: SessionRow, isAdmin: boolean, privileges: PrivilegeName[]): UserActor {
  return {
    kind: 'user',
    userId: session.userId,
    sessionId: session.id,
    requireSession: session.requireSession,
    isAdmin,
    privileges: new Set(privileges),
  };
}

async function touchSession(db: Database, session: SessionRow, sessionDays: number): Promise<void> {
  if (Date.now() - session.lastUsedAt.getTime() < touchEveryMs) return;
  const now = new Date();
  const expiresAt = session.requireSession ? new Date(now.getTime() + sessionDays * 86_400_000) : session.expiresAt;
  await db.update(sessions).set({ lastUsedAt: now, expiresAt }).where(eq(sessions.id, session.id));
}
