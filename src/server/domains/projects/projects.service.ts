import { and, asc, eq, or, sql } from 'drizzle-orm';
import {
  createProjectInput,
  descriptionSchema,
  patchProjectInput,
  setProjectQuotasInput,
  type PatchProjectInput,
  starSchema,
  type Description,
  type Project,
  type Quotas,
} from '../../../shared/schemas/projects.ts';
import type { Executor } from '../../db/client.ts';
import { projects, projectStars, projectUsers } from '../../db/schema/index.ts';
import { newId } from '../../db/ids.ts';
import type { Deps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import { requireAdmin, requirePrivilege, requireUser, type Actor } from '../auth/actor.ts';
import { checkDescriptionImages } from './description-images.ts';
import { readProjectQuotas } from './project-quotas.ts';
import { enqueueRetention } from './retention.job.ts';
import { loadProjectAccess, membershipOf, possibleActions, projectWithMembershipColumns, requireAction, type ProjectAccess } from './access.ts';

function describeProject(access: ProjectAccess): Project {
  return {
    id: access.project.id,
    title: access.project.title,
    isPublic: access.project.isPublic,
    storeTags: access.project.storeTags,
    userIsOwner: access.userIsOwner,
    userIsListed: access.userIsListed,
    userIsPending: access.userIsPending,
    userRole: access.userRole,
    userPossibleActions: access.userPossibleActions,
    created: access.project.createdAt.toISOString(),
  };
}

/** POST /projects: needs privilege create_project; the creator becomes the owner (an admin with the flag). */
export async function createProject(deps: Deps, actor: Actor, rawInput: { title: string }): Promise<Project> {
  const user = requirePrivilege(actor, 'create_project');
  const input = createProjectInput.parse(rawInput);
  const projectId = newId();
  await deps.db.transaction(async (tx) => {
    await tx.insert(projects).values({ id: projectId, title: input.title });
    await tx.insert(projectUsers).values({ projectId, userId: user.userId, role: 'admin', isOwner: true });
  });
  return describeProject(await loadProjectAccess(deps, actor, projectId));
}

export async function getProject(deps: Deps, actor: Actor, projectId: string): Promise<Project> {
  return describeProject(await loadProjectAccess(deps, actor, projectId));
}

/**
 * PATCH /projects/{project}: {title}, {isPublic} and/or {storeTags}; each needs patchProject. Making a
 * private project public also needs privilege store_publish (spec §5); it does not publish any branch
 * (spec §4). Store tags are stored normalised (store-tags.ts); the row's trigger refreshes the store.
 */
export async function patchProject(deps: Deps, actor: Actor, projectId: string, rawInput: PatchProjectInput): Promise<Project> {
  const input = patchProjectInput.parse(rawInput);
  await deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    requireAction(access, 'patchProject');
    if (input.isPublic === true && !access.project.isPublic) requirePrivilege(actor, 'store_publish');
    await tx.update(projects).set({ title: input.title, isPublic: input.isPublic, storeTags: input.storeTags }).where(eq(projects.id, projectId));
  });
  return getProject(deps, actor, projectId);
}

/**
 * DELETE /projects/{project}: owner only. Branches, versions, publish history, members, stars and invites
 * go with it (foreign keys cascade). SEAM (issue 6): package blobs are released by the packages domain.
 */
export async function deleteProject(deps: Deps, actor: Actor, projectId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    requireAction(access, 'deleteProject');
    await tx.delete(projects).where(eq(projects.id, projectId));
  });
}

/** GET /users/me/projects: approved memberships, then starred public projects; by title (locale collator). */
export async function listMyProjects(deps: Deps, actor: Actor): Promise<Project[]> {
  const user = requireUser(actor);
  const rows = await deps.db
    .select({
      ...projectWithMembershipColumns,
      starred: sql<boolean>`${projectStars.userId} is not null`,
    })
    .from(projects)
    .leftJoin(projectUsers, and(eq(projectUsers.projectId, projects.id), eq(projectUsers.userId, user.userId)))
    .leftJoin(projectStars, and(eq(projectStars.projectId, projects.id), eq(projectStars.userId, user.userId)))
    .where(
      or(
        and(eq(projectUsers.pending, false), sql`${projectUsers.userId} is not null`),
        and(eq(projects.isPublic, true), sql`${projectStars.userId} is not null`),
      ),
    )
    .orderBy(asc(projects.createdAt));
  const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });
  return rows
    .map((row): Project => {
      const { isOwner, role } = membershipOf(row);
      return {
        id: row.id,
        title: row.title,
        isPublic: row.isPublic,
        storeTags: row.storeTags,
        userIsOwner: isOwner,
        userIsListed: true,
        userIsPending: row.pending === true,
        userRole: role ?? 'starred',
        userPossibleActions: possibleActions(role, isOwner),
        created: row.createdAt.toISOString(),
      };
    })
    .sort((a, b) => collator.compare(a.title, b.title) || a.id.localeCompare(b.id));
}

/** GET .../quotas: the project's overrides over the instance defaults; 0 is reported as null (no limit). */
export async function getProjectQuotas(deps: Deps, actor: Actor, projectId: string): Promise<Quotas> {
  await loadProjectAccess(deps, actor, projectId);
  return readProjectQuotas(deps.db, deps.config.quotas, projectId);
}

/** Instance administrators only (tRPC admin.setProjectQuotas): undefined keeps, null resets to the default. */
export async function setProjectQuotas(deps: Deps, actor: Actor, rawInput: unknown): Promise<Quotas> {
  requireAdmin(actor);
  const input = setProjectQuotasInput.parse(rawInput);
  const updated = await deps.db
    .update(projects)
    .set({
      quotaPackageSize: input.packageSize,
      quotaBranchVersionsCount: input.branchVersionsCount,
      quotaBranchVersionsTime: input.branchVersionsTime,
      quotaBranchVersionsNonCurrentTime: input.branchVersionsNonCurrentTime,
      // drizzle skips an all-undefined set; touching id keeps the statement valid.
      id: sql`${projects.id}`,
    })
    .where(eq(projects.id, input.project))
    .returning({ id: projects.id });
  if (updated.length === 0) throw notFound('project');
  // New retention quotas apply now rather than at the next hourly sweep.
  await enqueueRetention(deps.db, input.project);
  deps.jobSignal.notify();
  return readProjectQuotas(deps.db, deps.config.quotas, input.project);
}

export async function getDescription(deps: Deps, actor: Actor, projectId: string): Promise<Description> {
  await loadProjectAccess(deps, actor, projectId);
  const [row] = await deps.db
    .select({ markdown: projects.descriptionMarkdown, lang: projects.descriptionLang, images: projects.descriptionImages })
    .from(projects)
    .where(eq(projects.id, projectId));
  if (!row) throw notFound('project');
  return row;
}

/**
 * PUT .../description: needs patchProject; the markdown and language are stored as given, the images
 * list as the server knows those images (description-images.ts).
 */
export async function putDescription(deps: Deps, actor: Actor, projectId: string, rawInput: unknown): Promise<Description> {
  const input = descriptionSchema.parse(rawInput);
  return deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    requireAction(access, 'patchProject');
    const images = await checkDescriptionImages(tx, projectId, input.images);
    await tx
      .update(projects)
      .set({ descriptionMarkdown: input.markdown, descriptionLang: input.lang, descriptionImages: images })
      .where(eq(projects.id, projectId));
    return { ...input, images };
  });
}

/** GET .../star: whether the signed-in caller starred the project (visitors: sign in first). */
export async function getStar(deps: Deps, actor: Actor, projectId: string): Promise<boolean> {
  const user = requireUser(actor);
  await loadProjectAccess(deps, actor, projectId);
  const [row] = await deps.db
    .select({ userId: projectStars.userId })
    .from(projectStars)
    .where(and(eq(projectStars.projectId, projectId), eq(projectStars.userId, user.userId)));
  return row !== undefined;
}

/** PUT .../star: anyone signed in who can see the project; a non-member of a public project becomes 'starred'. */
export async function putStar(deps: Deps, actor: Actor, projectId: string, rawInput: unknown): Promise<boolean> {
  const starred = starSchema.parse(rawInput);
  const user = requireUser(actor);
  await loadProjectAccess(deps, actor, projectId);
  if (starred) {
    await deps.db.insert(projectStars).values({ projectId, userId: user.userId }).onConflictDoNothing();
  } else {
    await deps.db.delete(projectStars).where(and(eq(projectStars.projectId, projectId), eq(projectStars.userId, user.userId)));
  }
  return starred;
}

/** The projects a user owns: deleting the account is refused while there are any (see users.service deleteMe). */
export async function listOwnedProjects(db: Executor, userId: string): Promise<{ id: string; title: string }[]> {
  return db
    .select({ id: projects.id, title: projects.title })
    .from(projects)
    .innerJoin(projectUsers, and(eq(projectUsers.projectId, projects.id), eq(projectUsers.userId, userId), eq(projectUsers.isOwner, true)))
    .orderBy(asc(projects.title));
}
