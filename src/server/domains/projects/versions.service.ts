import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import {
  createVersionInput,
  historyPageQuery,
  patchVersionInput,
  type BranchHistoryItem,
  type Version,
  type VersionInBranch,
} from '../../../shared/schemas/versions.ts';
import type { Executor } from '../../db/client.ts';
import { branches, branchVersions, packages, versionPackages, versions } from '../../db/schema/index.ts';
import { newId } from '../../db/ids.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../auth/actor.ts';
import { loadProjectAccess, requireAction, type ProjectAccess } from './access.ts';
import { touchPackagesOfVersions } from '../packages/records/package-touch.ts';
import { enqueueRetention } from './retention.job.ts';

type VersionRow = { id: string; title: string; description: string; createdAt: Date };

const versionColumns = { id: versions.id, title: versions.title, description: versions.description, createdAt: versions.createdAt };

function describeVersion(row: VersionRow): Version {
  return { id: row.id, title: row.title, description: row.description, created: row.createdAt.toISOString() };
}

/** Non-members see a version only once it was published to a public branch (the project is then public). */
const inPublicBranch = sql`exists (select 1 from ${branchVersions} join ${branches} on ${branches.id} = ${branchVersions.branchId}
  where ${branchVersions.versionId} = ${versions.id} and ${branches.isPublic})`;

async function getVisibleVersion(db: Executor, access: ProjectAccess, versionId: string): Promise<VersionRow> {
  const [row] = await db
    .select(versionColumns)
    .from(versions)
    .where(and(eq(versions.id, versionId), eq(versions.projectId, access.project.id), access.userIsMember ? undefined : inPublicBranch));
  if (!row) throw notFound('version');
  return row;
}

async function getVisibleBranchId(db: Executor, access: ProjectAccess, branchId: string, options: { lock?: boolean } = {}): Promise<{ id: string; title: string }> {
  const query = db
    .select({ id: branches.id, title: branches.title, isPublic: branches.isPublic })
    .from(branches)
    .where(and(eq(branches.id, branchId), eq(branches.projectId, access.project.id)));
  const [row] = options.lock ? await query.for('update') : await query;
  if (!row || !(access.userIsMember || row.isPublic)) throw notFound('branch');
  return row;
}

/** The version currently published on a branch (its latest publish), if any. */
async function currentVersionIdOf(db: Executor, branchId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ versionId: branchVersions.versionId })
    .from(branchVersions)
    .where(eq(branchVersions.branchId, branchId))
    .orderBy(desc(branchVersions.publishedAt), desc(branchVersions.id))
    .limit(1);
  return row?.versionId;
}

/** GET .../versions: newest first; non-members see versions published to public branches only. */
export async function listVersions(deps: Deps, actor: Actor, projectId: string): Promise<Version[]> {
  const access = await loadProjectAccess(deps, actor, projectId);
  const rows = await deps.db
    .select(versionColumns)
    .from(versions)
    .where(and(eq(versions.projectId, projectId), access.userIsMember ? undefined : inPublicBranch))
    .orderBy(desc(versions.createdAt), desc(versions.id));
  return rows.map(describeVersion);
}

export async function getVersion(deps: Deps, actor: Actor, projectId: string, versionId: string): Promise<Version> {
  const access = await loadProjectAccess(deps, actor, projectId);
  return describeVersion(await getVisibleVersion(deps.db, access, versionId));
}

/**
 * Every package must be a package of this project (not_found otherwise) that is ready: finalized, and
 * resolved when it is a patch (not_finalized otherwise). The rows are locked (FOR SHARE) so a concurrent
 * delete cannot remove one before this version lists it.
 */
async function requireFinalizedPackages(db: Executor, projectId: string, packageIds: string[]): Promise<void> {
  if (packageIds.length === 0) return;
  const rows = await db
    .select({ id: packages.id, status: packages.status })
    .from(packages)
    .where(and(eq(packages.projectId, projectId), inArray(packages.id, packageIds)))
    .for('share');
  const byId = new Map(rows.map((row) => [row.id, row.status]));
  for (const id of packageIds) {
    const status = byId.get(id);
    if (status === undefined) throw notFound('package');
    if (status !== 'ready') throw new AppError('not_finalized', `The package ${id} is not ready yet`, { package: id });
  }
}

async function requireFreeTitle(db: Executor, projectId: string, title: string, exceptVersionId?: string): Promise<void> {
  const [taken] = await db
    .select({ id: versions.id })
    .from(versions)
    .where(and(eq(versions.projectId, projectId), eq(versions.title, title)));
  if (taken && taken.id !== exceptVersionId) throw new AppError('name_conflict', `A version titled ${title} already exists`);
}

/** POST .../versions: needs publishVersion; titles are unique per project; packages must be finalized. */
export async function createVersion(deps: Deps, actor: Actor, projectId: string, rawInput: unknown): Promise<Version> {
  const input = createVersionInput.parse(rawInput);
  if (new Set(input.packages).size !== input.packages.length) throw new AppError('bad_param', 'Invalid `packages`: a package is listed twice');
  return deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    requireAction(access, 'publishVersion');
    await requireFreeTitle(tx, projectId, input.title);
    await requireFinalizedPackages(tx, projectId, input.packages);
    const [row] = await tx
      .insert(versions)
      .values({ id: newId(), projectId, title: input.title, description: input.description, createdBy: actor.kind === 'user' ? actor.userId : null })
      .returning(versionColumns);
    if (input.packages.length > 0) {
      await tx.insert(versionPackages).values(input.packages.map((packageId, position) => ({ versionId: row!.id, packageId, position })));
    }
    return describeVersion(row!);
  });
}

/** PATCH .../versions/{version}: title and/or description; needs patchVersion. */
export async function patchVersion(deps: Deps, actor: Actor, projectId: string, versionId: string, rawInput: unknown): Promise<Version> {
  const input = patchVersionInput.parse(rawInput);
  return deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    await getVisibleVersion(tx, access, versionId);
    requireAction(access, 'patchVersion');
    if (input.title !== undefined) await requireFreeTitle(tx, projectId, input.title, versionId);
    const [row] = await tx.update(versions).set({ title: input.title, description: input.description }).where(eq(versions.id, versionId)).returning(versionColumns);
    return describeVersion(row!);
  });
}

/**
 * DELETE .../versions/{version}: needs deleteVersion. Refused (not_empty, naming the branches) while the
 * version is current on a branch: a branch never silently falls back to an older version. Its past
 * publishes go with it.
 */
export async function deleteVersion(deps: Deps, actor: Actor, projectId: string, versionId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    await getVisibleVersion(tx, access, versionId);
    requireAction(access, 'deleteVersion');
    const current = (await versionBranches(tx, versionId)).filter((item) => item.isCurrent);
    if (current.length > 0) {
      throw new AppError('not_empty', `The version is current on: ${current.map((item) => item.branchTitle).join(', ')}`, {
        branches: current.map((item) => ({ id: item.branchId, title: item.branchTitle })),
      });
    }
    await touchPackagesOfVersions(tx, [versionId]);
    await tx.delete(versions).where(eq(versions.id, versionId));
  });
}

/** Every publish of a version, newest first, with whether it is still the branch's current one. */
async function versionBranches(db: Executor, versionId: string): Promise<(VersionInBranch & { isPublic: boolean })[]> {
  const rows = await db
    .select({
      branchId: branches.id,
      branchTitle: branches.title,
      isPublic: branches.isPublic,
      publishedAt: branchVersions.publishedAt,
      isCurrent: sql<boolean>`${branchVersions.id} = (select bv.id from ${branchVersions} bv where bv.branch_id = ${branches.id}
        order by bv.published_at desc, bv.id desc limit 1)`,
    })
    .from(branchVersions)
    .innerJoin(branches, eq(branches.id, branchVersions.branchId))
    .where(eq(branchVersions.versionId, versionId))
    .orderBy(desc(branchVersions.publishedAt), desc(branchVersions.id));
  return rows.map((row) => ({ branchId: row.branchId, branchTitle: row.branchTitle, isCurrent: row.isCurrent, published: row.publishedAt.toISOString(), isPublic: row.isPublic }));
}

/** GET .../versions/{version}/branches (before, count): the publishes of a version the caller may see. */
export async function listVersionBranches(deps: Deps, actor: Actor, projectId: string, versionId: string, rawQuery: unknown): Promise<VersionInBranch[]> {
  const query = historyPageQuery.parse(rawQuery ?? {});
  const access = await loadProjectAccess(deps, actor, projectId);
  await getVisibleVersion(deps.db, access, versionId);
  const before = query.before ? new Date(query.before).getTime() : Infinity;
  return (await versionBranches(deps.db, versionId))
    .filter((item) => (access.userIsMember || item.isPublic) && new Date(item.published).getTime() < before)
    .slice(0, query.count)
    .map(({ branchId, branchTitle, isCurrent, published }) => ({ branchId, branchTitle, isCurrent, published }));
}

/** GET .../branches/{branch}/versions (before, count): the branch's publish history, newest first. */
export async function listBranchHistory(deps: Deps, actor: Actor, projectId: string, branchId: string, rawQuery: unknown): Promise<BranchHistoryItem[]> {
  const query = historyPageQuery.parse(rawQuery ?? {});
  const access = await loadProjectAccess(deps, actor, projectId);
  await getVisibleBranchId(deps.db, access, branchId);
  const [latest] = await deps.db
    .select({ id: branchVersions.id })
    .from(branchVersions)
    .where(eq(branchVersions.branchId, branchId))
    .orderBy(desc(branchVersions.publishedAt), desc(branchVersions.id))
    .limit(1);
  const rows = await deps.db
    .select({ ...versionColumns, publishId: branchVersions.id, publishedAt: branchVersions.publishedAt })
    .from(branchVersions)
    .innerJoin(versions, eq(versions.id, branchVersions.versionId))
    .where(and(eq(branchVersions.branchId, branchId), query.before ? lt(branchVersions.publishedAt, new Date(query.before)) : undefined))
    .orderBy(desc(branchVersions.publishedAt), desc(branchVersions.id))
    .limit(query.count);
  return rows.map((row) => ({
    ...describeVersion(row),
    published: row.publishedAt.toISOString(),
    isCurrent: row.publishId === latest?.id,
  }));
}

/**
 * POST .../branches/{branch}/versions/{version}: publishes an existing version (publishVersion). Refused
 * when it already is the branch's current version. The branch row is locked and the time taken from
 * clock_timestamp() after the lock, so concurrent publishes leave one consistent order and current version.
 */
export async function publishVersion(deps: Deps, actor: Actor, projectId: string, branchId: string, versionId: string): Promise<BranchHistoryItem> {
  const published = await deps.db.transaction(async (tx) => {
    // The project lock also orders publishes against version deletion; the branch lock is the publish order.
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    await getVisibleBranchId(tx, access, branchId, { lock: true });
    const version = await getVisibleVersion(tx, access, versionId);
    requireAction(access, 'publishVersion');
    if ((await currentVersionIdOf(tx, branchId)) === versionId) {
      throw new AppError('bad_param', 'Invalid `version`: it already is the current version of this branch');
    }
    const [publish] = await tx
      .insert(branchVersions)
      .values({ id: newId(), branchId, versionId, publishedAt: sql`clock_timestamp()` })
      .returning({ publishedAt: branchVersions.publishedAt });
    // A publish changes what the branch keeps. Queued in the same transaction, so a committed publish
    // always has its retention run (a crash right after the commit cannot lose it) and a rolled-back
    // one has none; the run waits on the project lock held here, so it sees this publish.
    await enqueueRetention(tx, projectId);
    return { ...describeVersion(version), published: publish!.publishedAt.toISOString(), isCurrent: true };
  });
  deps.jobSignal.notify();
  return published;
}
