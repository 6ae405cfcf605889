import { and, eq } from 'drizzle-orm';
import { patchMeInput, type Me } from '../../../shared/schemas/users.ts';
import { credentials, users } from '../../db/schema/index.ts';
import type { Database } from '../../db/client.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import { requireBrowserSession, requireUser, type Actor } from '../auth/actor.ts';
import { privilegesOf } from '../auth/principal.ts';
import { listOwnedProjects } from '../projects/projects.service.ts';

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

/**
 * Deletes the account; credentials, sessions, tokens, privileges, memberships and stars go with it
 * (foreign keys cascade). Refused with not_empty while the user owns projects: a team's work is never
 * deleted as a side effect; the owner deletes those projects first.
 */
export async function deleteMe(deps: Deps, actor: Actor): Promise<void> {
  const user = requireBrowserSession(actor);
  await deps.db.transaction(async (tx) => {
    // Locking the user row makes a concurrent project creation wait (its owner row references the user),
    // so no project is left without an owner.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, user.userId)).for('update');
    const owned = await listOwnedProjects(tx, user.userId);
    if (owned.length > 0) {
      const titles = owned.map((project) => project.title).join(', ');
      throw new AppError('not_empty', `Delete the projects you own first: ${titles}`, { projects: owned });
    }
    await tx.delete(users).where(eq(users.id, user.userId));
  });
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
