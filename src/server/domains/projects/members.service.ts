import { and, eq } from 'drizzle-orm';
import { setProjectUserInput, type ProjectUser } from '../../../shared/schemas/projects.ts';
import type { Executor } from '../../db/client.ts';
import { projectUsers, users } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../auth/actor.ts';
import { loadProjectAccess, requireAction, requireMember, roleRank } from './access.ts';

/** GET .../users: members only; owner first, then role rank (admin first), then name (locale collator). */
export async function listProjectUsers(deps: Deps, actor: Actor, projectId: string): Promise<ProjectUser[]> {
  const access = await loadProjectAccess(deps, actor, projectId);
  requireMember(access);
  return readProjectUsers(deps.db, projectId);
}

/**
 * PUT .../users {user, role}: changes a member's role (approving a pending member), or removes the
 * member when role is missing. Needs setUser; nobody changes or removes the owner. New members come
 * through invites, so an unknown or non-member user is not_found.
 */
export async function setProjectUser(deps: Deps, actor: Actor, projectId: string, rawInput: unknown): Promise<ProjectUser[]> {
  const input = setProjectUserInput.parse(rawInput);
  await deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    requireAction(access, 'setUser');
    const [target] = await tx
      .select({ isOwner: projectUsers.isOwner })
      .from(projectUsers)
      .where(and(eq(projectUsers.projectId, projectId), eq(projectUsers.userId, input.user)));
    if (!target) throw notFound('user');
    if (target.isOwner) throw new AppError('insufficient_privileges', 'Nobody can change or remove the owner of a project');
    const where = and(eq(projectUsers.projectId, projectId), eq(projectUsers.userId, input.user));
    if (input.role) await tx.update(projectUsers).set({ role: input.role, pending: false }).where(where);
    else await tx.delete(projectUsers).where(where);
  });
  return readProjectUsers(deps.db, projectId);
}

/** POST .../users/leave: any member but the owner (who deletes the project instead). */
export async function leaveProject(deps: Deps, actor: Actor, projectId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    if (access.userIsOwner) throw new AppError('insufficient_privileges', 'The owner cannot leave the project; delete it instead');
    requireAction(access, 'leaveProject');
    if (actor.kind !== 'user') return;
    await tx.delete(projectUsers).where(and(eq(projectUsers.projectId, projectId), eq(projectUsers.userId, actor.userId)));
  });
}

async function readProjectUsers(db: Executor, projectId: string): Promise<ProjectUser[]> {
  const rows = await db
    .select({ id: users.id, title: users.title, role: projectUsers.role, isOwner: projectUsers.isOwner, pending: projectUsers.pending })
    .from(projectUsers)
    .innerJoin(users, eq(users.id, projectUsers.userId))
    .where(eq(projectUsers.projectId, projectId));
  const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });
  return rows
    .sort(
      (a, b) =>
        Number(b.isOwner) - Number(a.isOwner) ||
        roleRank[b.role] - roleRank[a.role] ||
        collator.compare(a.title, b.title) ||
        a.id.localeCompare(b.id),
    )
    .map((row) => ({ user: { id: row.id, title: row.title }, role: row.role, isOwner: row.isOwner, pending: row.pending }));
}
