import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { BranchRetention } from '../../../shared/schemas/branches.ts';
import type { Quotas } from '../../../shared/schemas/projects.ts';
import { branches, branchVersions, projects, versions } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { readProjectQuotas } from './project-quotas.ts';
import { touchPackagesOfVersions } from '../packages/records/package-touch.ts';

/**
 * Branch retention (spec §3; README "Retention"). Times are seconds, counts are versions.
 *
 * For each branch, its distinct versions are ranked by their latest publish on that branch, newest
 * first (rank 0 is the current version). The branch keeps:
 * - its current version, always, whatever the quotas;
 * - a previous version while all of these hold: rank < quotaCount (the current one counts as one),
 *   now − its latest publish there < quotaTime, and now − the moment it stopped being current there
 *   (the publish that came right after its latest one) < quotaNonCurrentTime. A null quota is no limit.
 * The publish history rows of the versions a branch no longer keeps are deleted. Then every version that
 * had a publish before the run and has none left on any branch is deleted. A version current on some
 * branch keeps that row, so it is never deleted; versions never published are left alone (a developer
 * may be about to publish one).
 *
 * Runs as the 'retention' job (retention.job.ts: one queued per project), queued by every publish, by
 * retention changes, and hourly by the 'retention_sweep' job so time limits apply without new publishes.
 */

export type RetentionResult = {
  /** Publish history rows deleted. */
  branchVersionsRemoved: number;
  /** Versions deleted because no branch keeps them any more. */
  versionsRemoved: string[];
};

type BranchOverrides = { quotaCount: number | null; quotaTime: number | null; quotaNonCurrentTime: number | null };

/**
 * What the job enforces for a branch: its override, else the project's quotas (project override, else
 * instance default: readProjectQuotas). Null means no limit; a 0 stored on the branch (not reachable
 * through the API) also means no limit.
 */
export function effectiveRetention(branch: BranchOverrides, projectQuotas: Quotas): BranchRetention {
  const pick = (override: number | null, inherited: number | null) => (override === null ? inherited : override === 0 ? null : override);
  return {
    quotaCount: pick(branch.quotaCount, projectQuotas.branchVersionsCount),
    quotaTime: pick(branch.quotaTime, projectQuotas.branchVersionsTime),
    quotaNonCurrentTime: pick(branch.quotaNonCurrentTime, projectQuotas.branchVersionsNonCurrentTime),
  };
}

type Publish = { id: string; versionId: string; publishedAt: Date };

/**
 * The publish rows of one branch to delete, given its history newest first (by published_at, id).
 * Pure, so the rule reads in one place.
 */
function planBranchRetention(history: readonly Publish[], retention: BranchRetention, now: Date): string[] {
  const keep = new Set<string>();
  const seen = new Set<string>();
  let rank = 0;
  history.forEach((publish, index) => {
    if (seen.has(publish.versionId)) return; // an older publish of a version already ranked: it follows that version
    seen.add(publish.versionId);
    const current = index === 0;
    // The version stopped being current when the publish right after its latest one happened.
    const stoppedAt = current ? now : history[index - 1]!.publishedAt;
    const age = (since: Date) => (now.getTime() - since.getTime()) / 1000;
    const kept =
      current ||
      ((retention.quotaCount === null || rank < retention.quotaCount) &&
        (retention.quotaTime === null || age(publish.publishedAt) < retention.quotaTime) &&
        (retention.quotaNonCurrentTime === null || age(stoppedAt) < retention.quotaNonCurrentTime));
    if (kept) keep.add(publish.versionId);
    rank++;
  });
  return history.filter((publish) => !keep.has(publish.versionId)).map((publish) => publish.id);
}

/** Deletes in slices so a large project stays under the drivers' parameter limits. */
async function deleteInSlices(ids: readonly string[], remove: (slice: string[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < ids.length; start += 1000) await remove(ids.slice(start, start + 1000));
}

/**
 * Enforces retention on one project in one transaction. It takes the project row lock first, the same
 * lock publishVersion, createVersion, deleteBranch and patchBranch take, so no publish can interleave
 * with the reading and the deleting. `now` defaults to the database clock (the clock publishes use).
 */
export async function applyRetention(deps: Pick<Deps, 'db' | 'config'>, projectId: string, now?: Date): Promise<RetentionResult> {
  return deps.db.transaction(async (tx) => {
    const [project] = await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).for('update');
    if (!project) return { branchVersionsRemoved: 0, versionsRemoved: [] }; // deleted meanwhile: nothing left to do
    const [clock] = await tx.select({ now: sql`clock_timestamp()`.mapWith(projects.createdAt) }).from(projects).where(eq(projects.id, projectId));
    const at = now ?? (clock!.now as Date);

    const quotas = await readProjectQuotas(tx, deps.config.quotas, projectId);
    const branchRows = await tx
      .select({ id: branches.id, quotaCount: branches.quotaCount, quotaTime: branches.quotaTime, quotaNonCurrentTime: branches.quotaNonCurrentTime })
      .from(branches)
      .where(eq(branches.projectId, projectId));
    const publishes = await tx
      .select({ id: branchVersions.id, branchId: branchVersions.branchId, versionId: branchVersions.versionId, publishedAt: branchVersions.publishedAt })
      .from(branchVersions)
      .innerJoin(branches, eq(branches.id, branchVersions.branchId))
      .where(eq(branches.projectId, projectId))
      .orderBy(branchVersions.branchId, desc(branchVersions.publishedAt), desc(branchVersions.id));

    const historyOf = new Map<string, Publish[]>();
    for (const publish of publishes) {
      const history = historyOf.get(publish.branchId) ?? [];
      history.push(publish);
      historyOf.set(publish.branchId, history);
    }
    const removedPublishes = new Set<string>();
    for (const branch of branchRows) {
      const history = historyOf.get(branch.id);
      if (!history) continue;
      for (const id of planBranchRetention(history, effectiveRetention(branch, quotas), at)) removedPublishes.add(id);
    }
    if (removedPublishes.size === 0) return { branchVersionsRemoved: 0, versionsRemoved: [] };

    const stillPublished = new Set(publishes.filter((publish) => !removedPublishes.has(publish.id)).map((publish) => publish.versionId));
    const orphaned = [...new Set(publishes.map((publish) => publish.versionId))].filter((versionId) => !stillPublished.has(versionId)).sort();

    await deleteInSlices([...removedPublishes], (slice) => tx.delete(branchVersions).where(inArray(branchVersions.id, slice)));
    // The versions' version_packages rows go with them by cascade; a package no other version lists is
    // left to the orphan collector (packages/records/orphan-collect.service.ts), ORPHAN_PACKAGE_DAYS from now.
    await deleteInSlices(orphaned, async (slice) => {
      await touchPackagesOfVersions(tx, slice);
      await tx.delete(versions).where(and(eq(versions.projectId, projectId), inArray(versions.id, slice)));
    });
    return { branchVersionsRemoved: removedPublishes.size, versionsRemoved: orphaned };
  });
}
