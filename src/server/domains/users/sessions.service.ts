import { and, desc, eq } from 'drizzle-orm';
import { createApiTokenInput, type SessionItem } from '../../../shared/schemas/users.ts';
import { newId } from '../../db/ids.ts';
import { sessions } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import { requireBrowserSession, requireUser, type Actor } from '../auth/actor.ts';
import { generateToken, hashToken } from '../../crypto/index.ts';

type SessionRow = typeof sessions.$inferSelect;

/** GET /users/me/sessions: browser sessions and API tokens, newest first; tokens are never shown again. */
export async function listSessions(deps: Deps, actor: Actor): Promise<SessionItem[]> {
  const user = requireUser(actor);
  const rows = await deps.db.select().from(sessions).where(eq(sessions.userId, user.userId)).orderBy(desc(sessions.createdAt), sessions.id);
  const now = Date.now();
  return rows.filter((row) => !row.expiresAt || row.expiresAt.getTime() > now).map((row) => describeSessionItem(row, user.sessionId));
}

/** POST /users/me/sessions: an API token (requireSession false); the token is returned this once only. */
export async function createApiToken(
  deps: Deps,
  actor: Actor,
  rawInput: { title?: string; expires?: string | null },
): Promise<{ session: SessionItem; token: string }> {
  const user = requireBrowserSession(actor);
  const input = createApiTokenInput.parse(rawInput);
  const expiresAt = input.expires ? new Date(input.expires) : null;
  if (expiresAt && expiresAt.getTime() <= Date.now()) throw new AppError('bad_param', 'Invalid `expires`: it must be in the future');
  const token = generateToken('ct');
  const [row] = await deps.db
    .insert(sessions)
    .values({ id: newId(), userId: user.userId, tokenHash: hashToken(token), requireSession: false, title: input.title ?? 'API token', expiresAt })
    .returning();
  return { session: describeSessionItem(row!, user.sessionId), token };
}

/** DELETE /users/me/sessions/{session}: revokes at once; someone else's session is not_found. */
export async function revokeSession(deps: Deps, actor: Actor, sessionId: string): Promise<void> {
  const user = requireBrowserSession(actor);
  const deleted = await deps.db
    .delete(sessions)
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, user.userId)))
    .returning({ id: sessions.id });
  if (deleted.length === 0) throw notFound('session');
}

function describeSessionItem(row: SessionRow, currentSessionId: string): SessionItem {
  return {
    id: row.id,
    title: row.title,
    started: row.createdAt.toISOString(),
    lastAuth: row.lastAuthAt.toISOString(),
    lastUsed: row.lastUsedAt?.toISOString() ?? null,
    expiration: row.expiresAt?.toISOString() ?? null,
    requireSession: row.requireSession,
    isCurrent: row.id === currentSessionId,
  };
}
