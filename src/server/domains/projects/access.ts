import { and, eq, sql } from 'drizzle-orm';
import { projectActionNames, type ProjectAction, type ProjectRole, type ProjectUserRole } from '../../../shared/schemas/projects.ts';
import type { Executor } from '../../db/client.ts';
import { projects, projectStars, projectUsers } from '../../db/schema/index.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../auth/actor.ts';

/**
 * The one table of DESIGN.md "Roles and actions". Viewing and downloading need no action: any member
 * may (and anyone for what is public). The owner flag adds deleteProject and removes leaveProject.
 */
const testerActions: readonly ProjectAction[] = ['leaveProject'];
const developerActions: readonly ProjectAction[] = [...testerActions, 'createBranch', 'patchBranch', 'publishVersion', 'patchVersion', 'patchPackage'];
const adminActions: readonly ProjectAction[] = [
  ...developerActions,
  'deleteBranch',
  'deleteVersion',
  'deletePackage',
  'setUser',
  'createInvite',
  'createDeploySite',
  'deleteDeploySite',
  'deployVersionToSite',
  'patchProject',
];

const actionsOfRole: Record<ProjectRole, readonly ProjectAction[]> = {
  tester: testerActions,
  developer: developerActions,
  admin: adminActions,
};

export const roleRank: Record<ProjectRole, number> = { tester: 1, developer: 2, admin: 3 };

/** In the catalogue's order, so clients can rely on it. */
export function possibleActions(role: ProjectRole | undefined, isOwner: boolean): ProjectAction[] {
  if (isOwner) return projectActionNames.filter((action) => action !== 'leaveProject');
  if (!role) return [];
  const allowed = actionsOfRole[role];
  return projectActionNames.filter((action) => allowed.includes(action));
}

type ProjectRow = {
  id: string;
  title: string;
  isPublic: boolean;
  storeTags: string[];
  createdAt: Date;
};

export type ProjectAccess = {
  actor: Actor;
  project: ProjectRow;
  /** The member's role; 'starred' for a signed-in non-member who starred the project; null otherwise. */
  userRole: ProjectUserRole | null;
  userIsOwner: boolean;
  /** The project is in the caller's GET /users/me/projects (an approved member, or starred). */
  userIsListed: boolean;
  /** An approved member (pending invitees are not members yet). */
  userIsMember: boolean;
  /** Waiting for an admin to approve the membership. */
  userIsPending: boolean;
  userPossibleActions: ProjectAction[];
};

/** A project with the caller's membership row (left-joined): the columns both access and listings read. */
export const projectWithMembershipColumns = {
  id: projects.id,
  title: projects.title,
  isPublic: projects.isPublic,
  storeTags: projects.storeTags,
  createdAt: projects.createdAt,
  role: projectUsers.role,
  isOwner: projectUsers.isOwner,
  pending: projectUsers.pending,
};

/** A pending member counts as an outsider; the owner flag only counts for members. */
export function membershipOf(row: { role: ProjectRole | null; isOwner: boolean | null; pending: boolean | null }): {
  isMember: boolean;
  isOwner: boolean;
  role: ProjectRole | undefined;
} {
  const isMember = row.role !== null && row.pending === false;
  return { isMember, isOwner: isMember && row.isOwner === true, role: isMember ? row.role! : undefined };
}

/**
 * What the caller may do with a project. A project the caller may not see (private and not an approved
 * member, or unknown) is not_found, never 403, so its existence does not leak. API tokens act as their
 * user. `lock` takes a row lock on the project for the rest of the transaction.
 */
export async function loadProjectAccess(deps: { db: Executor }, actor: Actor, projectId: string, options: { lock?: boolean } = {}): Promise<ProjectAccess> {
  const userId = actor.kind === 'user' ? actor.userId : null;
  const query = deps.db
    .select({
      ...projectWithMembershipColumns,
      starred: userId
        ? sql<boolean>`exists (select 1 from ${projectStars} where ${projectStars.projectId} = ${projects.id} and ${projectStars.userId} = ${userId})`
        : sql<boolean>`false`,
    })
    .from(projects)
    .leftJoin(projectUsers, and(eq(projectUsers.projectId, projects.id), eq(projectUsers.userId, userId ?? '')))
    .where(eq(projects.id, projectId));
  const [row] = options.lock ? await query.for('update', { of: projects }) : await query;
  if (!row) throw notFound('project');
  const { isMember, isOwner, role } = membershipOf(row);
  if (!row.isPublic && !isMember) throw notFound('project');
  const starred = userId !== null && row.starred === true;
  return {
    actor,
    project: { id: row.id, title: row.title, isPublic: row.isPublic, storeTags: row.storeTags, createdAt: row.createdAt },
    userRole: role ?? (starred && row.isPublic ? 'starred' : null),
    userIsOwner: isOwner,
    userIsListed: isMember || (starred && row.isPublic),
    userIsMember: isMember,
    userIsPending: row.pending === true,
    userPossibleActions: possibleActions(role, isOwner),
  };
}

/** A visitor who lacks an action must sign in (401); a signed-in caller who lacks it is refused (403). */
export function requireAction(access: ProjectAccess, action: ProjectAction): void {
  if (access.userPossibleActions.includes(action)) return;
  if (access.actor.kind !== 'user') throw new AppError('unauthorized', 'Sign in first');
  throw new AppError('insufficient_privileges', `Your role in this project does not allow ${action}`);
}

/** Team pages are for members; outsiders of a public project see the store side only. */
export function requireMember(access: ProjectAccess): void {
  if (access.userIsMember) return;
  if (access.actor.kind !== 'user') throw new AppError('unauthorized', 'Sign in first');
  throw new AppError('insufficient_privileges', 'Only members of this project can do this');
}
