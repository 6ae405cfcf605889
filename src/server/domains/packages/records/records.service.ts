import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { describeTagProblem, validateTags } from '../../../../shared/packages/tags.ts';
import {
  createPackageInput,
  patchPackageInput,
  type CreatedPackage,
  type Package,
  type PackageVersionRef,
  type ProjectPackage,
} from '../../../../shared/schemas/packages.ts';
import { branches, branchVersions, packages, versionPackages, versions } from '../../../db/schema/index.ts';
import { newId } from '../../../db/ids.ts';
import type { Deps } from '../../../deps.ts';
import { AppError, notFound } from '../../../errors.ts';
import type { Actor } from '../../auth/actor.ts';
import { hashToken } from '../../../crypto/index.ts';
import { loadProjectAccess, requireAction } from '../../projects/access.ts';
import { readProjectQuotas } from '../../projects/project-quotas.ts';
import { describePackage } from './describe-package.ts';
import { startFileExecutable } from './start-file-mode.ts';
import { getVisiblePackage, packageColumns, packageInPublicBranch, type PackageRow } from './package-rows.ts';
import { removePackage } from './remove-package.ts';
import { newUploadToken } from '../../../part-uploads/upload-token.ts';

const versionInPublicBranch = sql`exists (select 1 from ${branchVersions} join ${branches} on ${branches.id} = ${branchVersions.branchId}
  where ${branchVersions.versionId} = ${versions.id} and ${branches.isPublic})`;

function normalizeTags(tags: readonly string[]): string[] {
  const result = validateTags(tags);
  if (!result.ok) throw new AppError('bad_param', describeTagProblem(result.problem));
  return result.tags;
}

/** PUT parts go to `{appUrl}/api/uploads/{id}?token=...`: the token authorises them, no bearer needed. */
function uploadUrlOf(appUrl: string, packageId: string): string {
  return `${appUrl}/api/uploads/${packageId}`;
}

/**
 * POST .../packages (publishVersion, i.e. developer+): a package record in 'uploading' with a fresh
 * upload token (only its SHA-256 is kept; valid UPLOAD_HOURS). The declared archive size must fit the
 * project's packageSize quota. A base package must be a ready package of the same project.
 */
export async function createPackage(deps: Deps, actor: Actor, projectId: string, rawInput: unknown, appUrl: string): Promise<CreatedPackage> {
  const input = createPackageInput.parse(rawInput);
  const tags = normalizeTags(input.tags);
  const access = await loadProjectAccess(deps, actor, projectId);
  requireAction(access, 'publishVersion');
  const quotas = await readProjectQuotas(deps.db, deps.config.quotas, projectId);
  if (quotas.packageSize !== null && input.size > quotas.packageSize) {
    throw new AppError('limit_exceeded', `The package is larger than this project allows (${quotas.packageSize} bytes)`, { limit: quotas.packageSize });
  }
  if (input.basePackage) {
    const base = await getVisiblePackage(deps.db, access, input.basePackage);
    if (base.status !== 'ready') throw new AppError('not_finalized', 'The base package is not ready');
  }
  const token = newUploadToken();
  const id = newId();
  await deps.db.insert(packages).values({
    id,
    projectId,
    title: input.title ?? null,
    tags,
    entrypoint: input.entrypoint,
    declaredSize: input.size,
    basePackageId: input.basePackage ?? null,
    uploadTokenHash: hashToken(token),
    uploadExpiresAt: sql`now() + ${String(deps.config.uploads.tokenHours * 3600)}::double precision * interval '1 second'`,
  });
  return {
    id,
    uploadInfo: { token, uploadUrl: uploadUrlOf(appUrl, id), partSize: deps.config.uploads.partSize, partHashAlgorithm: 'sha1' },
  };
}

/**
 * GET .../packages: newest first, each with the versions it is in (newest first). Non-members see the
 * packages of versions on public branches only, and only those versions named.
 */
export async function listPackages(deps: Deps, actor: Actor, projectId: string): Promise<ProjectPackage[]> {
  const access = await loadProjectAccess(deps, actor, projectId);
  const rows = await deps.db
    .select(packageColumns)
    .from(packages)
    .where(and(eq(packages.projectId, projectId), access.userIsMember ? undefined : packageInPublicBranch))
    .orderBy(desc(packages.createdAt), desc(packages.id));
  const listed = await deps.db
    .select({ packageId: versionPackages.packageId, id: versions.id, title: versions.title })
    .from(versionPackages)
    .innerJoin(versions, eq(versions.id, versionPackages.versionId))
    .where(and(eq(versions.projectId, projectId), access.userIsMember ? undefined : versionInPublicBranch))
    .orderBy(desc(versions.createdAt), desc(versions.id));
  const versionsOf = new Map<string, PackageVersionRef[]>();
  for (const { packageId, id, title } of listed) {
    const refs = versionsOf.get(packageId) ?? [];
    refs.push({ id, title });
    versionsOf.set(packageId, refs);
  }
  return (rows as PackageRow[]).map((row) => ({ ...describePackage(row), versions: versionsOf.get(row.id) ?? [] }));
}

/** GET .../packages/{package}: the package with its start file's executable bit (start-file-mode.ts), which lists leave out. */
export async function getPackage(deps: Deps, actor: Actor, projectId: string, packageId: string): Promise<Package> {
  const access = await loadProjectAccess(deps, actor, projectId);
  const row = await getVisiblePackage(deps.db, access, packageId);
  return { ...describePackage(row), entrypointExecutable: await startFileExecutable(deps, row) };
}

/** GET .../versions/{version}/packages: in the version's order, titled with the version's title by default. */
export async function listVersionPackages(deps: Deps, actor: Actor, projectId: string, versionId: string): Promise<Package[]> {
  const access = await loadProjectAccess(deps, actor, projectId);
  const [version] = await deps.db
    .select({ id: versions.id, title: versions.title })
    .from(versions)
    .where(
      and(
        eq(versions.id, versionId),
        eq(versions.projectId, projectId),
        access.userIsMember
          ? undefined
          : sql`exists (select 1 from branch_versions bv join branches b on b.id = bv.branch_id where bv.version_id = ${versions.id} and b.is_public)`,
      ),
    );
  if (!version) throw notFound('version');
  const rows = await deps.db
    .select(packageColumns)
    .from(versionPackages)
    .innerJoin(packages, eq(packages.id, versionPackages.packageId))
    .where(eq(versionPackages.versionId, versionId))
    .orderBy(asc(versionPackages.position));
  return (rows as PackageRow[]).map((row) => describePackage(row));
}

/** PATCH .../packages/{package}: {title} (null: the derived title again) and/or {tags}; needs patchPackage. */
export async function patchPackage(deps: Deps, actor: Actor, projectId: string, packageId: string, rawInput: unknown): Promise<Package> {
  const input = patchPackageInput.parse(rawInput);
  const tags = input.tags === undefined ? undefined : normalizeTags(input.tags);
  const access = await loadProjectAccess(deps, actor, projectId);
  await getVisiblePackage(deps.db, access, packageId);
  requireAction(access, 'patchPackage');
  const [row] = await deps.db
    .update(packages)
    .set({ title: input.title, tags, touchedAt: sql`now()` })
    .where(eq(packages.id, packageId))
    .returning(packageColumns);
  return describePackage(row as PackageRow);
}

/**
 * DELETE .../packages/{package} (deletePackage; an upload not finalized yet also by whoever may upload,
 * so a developer can cancel the upload they started). Refused (not_empty) while a version lists it or an
 * unfinished patch is based on it (removePackage: the orphan collector's path too).
 */
export async function deletePackage(deps: Deps, actor: Actor, projectId: string, packageId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    const row = await getVisiblePackage(tx, access, packageId, { lock: true });
    requireAction(access, row.status === 'uploading' ? 'publishVersion' : 'deletePackage');
    await removePackage(tx, row);
  });
  deps.jobSignal.notify();
}
