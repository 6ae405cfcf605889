import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { createBranchInput, patchBranchInput, type Branch } from '../../../shared/schemas/branches.ts';
import type { Database, Executor } from '../../db/client.ts';
import { branches, branchVersions, versions } from '../../db/schema/index.ts';
import { newId } from '../../db/ids.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../auth/actor.ts';
import { loadProjectAccess, requireAction, type ProjectAccess } from './access.ts';
import { readProjectQuotas } from './project-quotas.ts';
import { enqueueRetention } from './retention.job.ts';
import { effectiveRetention } from './retention.service.ts';

type BranchRow = {
  id: string;
  title: string;
  isPublic: boolean;
  createdAt: Date;
  quotaCount: number | null;
  quotaTime: number | null;
  quotaNonCurrentTime: number | null;
};

const branchColumns = {
  id: branches.id,
  title: branches.title,
  isPublic: branches.isPublic,
  createdAt: branches.createdAt,
  quotaCount: branches.quotaCount,
  quotaTime: branches.quotaTime,
  quotaNonCurrentTime: branches.quotaNonCurrentTime,
};

/** Members see every branch; everyone else (the project is then public) sees public branches only. */
function canSeeBranch(access: ProjectAccess, branch: { isPublic: boolean }): boolean {
  return access.userIsMember || branch.isPublic;
}

/** A branch of the project the caller may see, else not_found (a private branch never leaks). */
async function getVisibleBranch(db: Executor, access: ProjectAccess, branchId: string): Promise<BranchRow> {
  const [row] = await db
    .select(branchColumns)
    .from(branches)
    .where(and(eq(branches.id, branchId), eq(branches.projectId, access.project.id)));
  if (!row || !canSeeBranch(access, row)) throw notFound('branch');
  return row;
}

/** The current version of each branch: its latest publish, by (published_at, id). */
async function currentVersionsOf(db: Database, branchIds: string[]): Promise<Map<string, Branch['currentVersion']>> {
  if (branchIds.length === 0) return new Map();
  const rows = await db
    .selectDistinctOn([branchVersions.branchId], {
      branchId: branchVersions.branchId,
      version: versions.id,
      title: versions.title,
      publishedAt: branchVersions.publishedAt,
    })
    .from(branchVersions)
    .innerJoin(versions, eq(versions.id, branchVersions.versionId))
    .where(inArray(branchVersions.branchId, branchIds))
    .orderBy(branchVersions.branchId, desc(branchVersions.publishedAt), desc(branchVersions.id));
  return new Map(rows.map((row) => [row.branchId, { version: row.version, title: row.title, published: row.publishedAt.toISOString() }]));
}

/** retention: the branch's overrides (null inherits); retentionEffective: what the retention job enforces. */
async function describeBranches(deps: Pick<Deps, 'db' | 'config'>, projectId: string, rows: BranchRow[]): Promise<Branch[]> {
  if (rows.length === 0) return [];
  const current = await currentVersionsOf(deps.db, rows.map((row) => row.id));
  const quotas = await readProjectQuotas(deps.db, deps.config.quotas, projectId);
  return rows.map((row) => {
    const retention = { quotaCount: row.quotaCount, quotaTime: row.quotaTime, quotaNonCurrentTime: row.quotaNonCurrentTime };
    return {
      id: row.id,
      title: row.title,
      isPublic: row.isPublic,
      currentVersion: current.get(row.id) ?? null,
      created: row.createdAt.toISOString(),
      retention,
      retentionEffective: effectiveRetention(retention, quotas),
    };
  });
}

/** GET .../branches: the branches the caller may see, by title (locale collator). */
export async function listBranches(deps: Deps, actor: Actor, projectId: string): Promise<Branch[]> {
  const access = await loadProjectAccess(deps, actor, projectId);
  const rows = await deps.db.select(branchColumns).from(branches).where(eq(branches.projectId, projectId));
  const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });
  const visible = rows.filter((row) => canSeeBranch(access, row)).sort((a, b) => collator.compare(a.title, b.title) || a.id.localeCompare(b.id));
  return describeBranches(deps, projectId, visible);
}

async function requireFreeTitle(db: Executor, projectId: string, title: string, exceptBranchId?: string): Promise<void> {
  const [taken] = await db
    .select({ id: branches.id })
    .from(branches)
    .where(and(eq(branches.projectId, projectId), eq(branches.title, title)));
  if (taken && taken.id !== exceptBranchId) throw new AppError('name_conflict', `A branch named ${title} already exists`);
}

/**
 * POST .../branches: needs createBranch; titles are unique in a project (name_conflict). New branches
 * are private. The project row lock serialises creations, so the title check cannot race.
 */
export async function createBranch(deps: Deps, actor: Actor, projectId: string, rawInput: unknown): Promise<Branch> {
  const input = createBranchInput.parse(rawInput);
  const row = await deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    requireAction(access, 'createBranch');
    await requireFreeTitle(tx, projectId, input.title);
    const [created] = await tx.insert(branches).values({ id: newId(), projectId, title: input.title }).returning(branchColumns);
    return created!;
  });
  return (await describeBranches(deps, projectId, [row]))[0]!;
}

/**
 * PATCH .../branches/{branch}: renaming needs patchBranch; the public toggle needs patchProject (what the
 * store shows is an admin's decision). A public branch of a private project shows nowhere until the
 * project is public too. Retention needs deleteVersion, since retention deletes versions; in it a field
 * left out stays, null returns to the project's default. A retention change queues a retention run
 * (in the transaction, so the change and its enforcement commit together).
 */
export async function patchBranch(deps: Deps, actor: Actor, projectId: string, branchId: string, rawInput: unknown): Promise<Branch> {
  const input = patchBranchInput.parse(rawInput);
  const retentionChanged = Object.values(input.retention ?? {}).some((value) => value !== undefined);
  const row = await deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    await getVisibleBranch(tx, access, branchId);
    if (input.title !== undefined) requireAction(access, 'patchBranch');
    if (input.isPublic !== undefined) requireAction(access, 'patchProject');
    if (input.retention !== undefined) requireAction(access, 'deleteVersion');
    if (input.title !== undefined) await requireFreeTitle(tx, projectId, input.title, branchId);
    const retention = input.retention ?? {};
    const [updated] = await tx
      .update(branches)
      .set({
        title: input.title,
        isPublic: input.isPublic,
        quotaCount: retention.quotaCount,
        quotaTime: retention.quotaTime,
        quotaNonCurrentTime: retention.quotaNonCurrentTime,
        // drizzle skips an all-undefined set (e.g. `retention: {}`); touching id keeps the statement valid.
        id: sql`${branches.id}`,
      })
      .where(eq(branches.id, branchId))
      .returning(branchColumns);
    if (retentionChanged) await enqueueRetention(tx, projectId);
    return updated!;
  });
  if (retentionChanged) deps.jobSignal.notify();
  return (await describeBranches(deps, projectId, [row]))[0]!;
}

/**
 * DELETE .../branches/{branch}: needs deleteBranch. Never refused as not_empty: the branch's publish
 * history goes with it, its versions stay in the project as unpublished versions (retention leaves those
 * alone: it only removes versions whose last publish it removed itself; an admin deletes them).
 */
export async function deleteBranch(deps: Deps, actor: Actor, projectId: string, branchId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    await getVisibleBranch(tx, access, branchId);
    requireAction(access, 'deleteBranch');
    await tx.delete(branches).where(eq(branches.id, branchId));
  });
}
