import { and, eq } from 'drizzle-orm';
import { patchMeInput, type Me } from '../../../shared/schemas/users.ts';
import { credentials, users } from '../../db/schema/index.ts';
import type { Database } from '../../db/client.ts';
import type { Deps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import { requireBrowserSession, requireUser, type Actor } from '../auth/actor.ts';
import { privilegesOf } from '../auth/principal.ts';

export async function getMe(deps: Deps, actor: Actor): Promise<Me> {
  const user = requireUser(actor);
  return describeUser(deps.db, user.userId);
}

export async function renameMe(deps: Deps, actor: Actor, rawInput: { title: string }): Promise<Me> {
  const user = requireUser(actor);
  const input = patchMeInput.parse(rawInput);
  await deps.db.update(users).set({ title: input.title }).where(eq(users.id, user.userId));
  return describeUser(deps.db, user.userId);
}

/** Deletes the account; credentials, sessions, tokens and privileges go with it (foreign keys cascade). */
export async function deleteMe(deps: Deps, actor: Actor): Promise<void> {
  const user = requireBrowserSession(actor);
  await deps.db.delete(users).where(eq(users.id, user.userId));
}

export async function describeUser(db: Database, userId: string): Promise<Me> {
  const [row] = await db
    .select({ id: users.id, title: users.title, isAdmin: users.isAdmin, createdAt: users.createdAt, name: credentials.name })
    .from(users)
    .leftJoin(credentials, and(eq(credentials.userId, users.id), eq(credentials.provider, 'password')))
    .where(eq(users.id, userId));
  if (!row) throw notFound('user');
  return {
    id: row.id,
    title: row.title,
    name: row.name,
    isAdmin: row.isAdmin,
    privileges: await privilegesOf(db, row.id, row.isAdmin),
    created: row.createdAt.toISOString(),
  };
}
