import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { privilegeNames, type PrivilegeName } from '../../../shared/schemas/privileges.ts';
import type { Database } from '../../db/client.ts';
import { sessions, userPrivileges, users } from '../../db/schema/index.ts';
import { AppError } from '../../errors.ts';
import type { Actor, UserActor } from './actor.ts';
import { hashToken } from '../../crypto/index.ts';

/** Use refreshes last-used (and a browser session's expiry) at most this often, to spare writes. */
const touchEveryMs = 5 * 60 * 1000;

type SessionRow = typeof sessions.$inferSelect;
export type LiveSession = { session: SessionRow; user: { id: string; title: string; isAdmin: boolean }; privileges: PrivilegeName[] };

/** An administrator holds every privilege; others hold what was granted, in catalogue order. */
function effectivePrivileges(isAdmin: boolean, granted: readonly string[]): PrivilegeName[] {
  return isAdmin ? [...privilegeNames] : privilegeNames.filter((name) => granted.includes(name));
}

export async function privilegesOf(db: Database, userId: string, isAdmin: boolean): Promise<PrivilegeName[]> {
  if (isAdmin) return [...privilegeNames];
  const rows = await db.select({ privilege: userPrivileges.privilege }).from(userPrivileges).where(eq(userPrivileges.userId, userId));
  return effectivePrivileges(false, rows.map((row) => row.privilege));
}

/**
 * The live session of a bearer token with its user and privileges, in one query (it runs on every
 * authenticated request); undefined when the token is unknown, revoked or expired.
 */
export async function findLiveSession(db: Database, token: string): Promise<LiveSession | undefined> {
  const [row] = await db
    .select({
      session: sessions,
      userTitle: users.title,
      isAdmin: users.isAdmin,
      granted: sql<string[]>`coalesce((select array_agg(${userPrivileges.privilege}) from ${userPrivileges} where ${userPrivileges.userId} = ${sessions.userId}), '{}')`,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, hashToken(token)), or(isNull(sessions.expiresAt), gt(sessions.expiresAt, sql`now()`))));
  if (!row) return undefined;
  return {
    session: row.session,
    user: { id: row.session.userId, title: row.userTitle, isAdmin: row.isAdmin },
    privileges: effectivePrivileges(row.isAdmin, row.granted),
  };
}

export async function resolveActor(db: Database, token: string | undefined, sessionDays: number): Promise<Actor> {
  if (!token) return { kind: 'visitor' };
  const found = await findLiveSession(db, token);
  if (!found) throw new AppError('wrong_auth', 'The session or API token is unknown, revoked or expired');
  await touchSession(db, found.session, sessionDays);
  return actorOf(found);
}

export function actorOf(found: LiveSession): UserActor {
  return {
    kind: 'user',
    userId: found.user.id,
    sessionId: found.session.id,
    requireSession: found.session.requireSession,
    isAdmin: found.user.isAdmin,
    privileges: new Set(found.privileges),
  };
}

async function touchSession(db: Database, session: SessionRow, sessionDays: number): Promise<void> {
  // An API token's first request is always recorded (never used until then: null).
  if (session.lastUsedAt && Date.now() - session.lastUsedAt.getTime() < touchEveryMs) return;
  const now = new Date();
  const expiresAt = session.requireSession ? new Date(now.getTime() + sessionDays * 86_400_000) : session.expiresAt;
  await db.update(sessions).set({ lastUsedAt: now, expiresAt }).where(eq(sessions.id, session.id));
}
