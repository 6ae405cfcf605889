import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { branches, branchVersions, packages, projects, versionPackages } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import { playUrlOf } from '../../browser-play/play-origin.ts';
import { createPublicPlayToken, createSignedPlayToken } from '../../browser-play/play-token.ts';
import type { Actor } from '../auth/actor.ts';
import { getReadyPackage } from '../packages/records/package-content.ts';
import { isPackagePublic, packageInPublicBranch } from '../packages/records/package-rows.ts';

const webTag = 'os:web';

/** What the play origin needs of a package to serve its files. */
export type PlayablePackage = { id: string; indexHash: string; compression: number };

/**
 * A ready package the play origin may serve. publicOnly: only while anyone may see it (a public
 * project, published in a version of a public branch: the packages' visibility rule for outsiders).
 */
export async function findPlayablePackage(db: Executor, packageId: string, options: { publicOnly: boolean }): Promise<PlayablePackage | undefined> {
  const [row] = await db
    .select({ id: packages.id, indexHash: packages.indexHash, compression: packages.compression })
    .from(packages)
    .innerJoin(projects, eq(projects.id, packages.projectId))
    .where(
      and(
        eq(packages.id, packageId),
        eq(packages.status, 'ready'),
        sql`${packages.tags} @> ${JSON.stringify([webTag])}::jsonb`,
        options.publicOnly ? and(eq(projects.isPublic, true), packageInPublicBranch) : undefined,
      ),
    );
  if (!row || row.indexHash === null || row.compression === null) return undefined;
  return { id: row.id, indexHash: row.indexHash, compression: row.compression };
}

function requireWebPackage(tags: string[]): void {
  if (!tags.includes(webTag)) throw new AppError('not_supported', `Only packages tagged ${webTag} can be played in the browser`);
}

/**
 * GET /projects/{p}/packages/{id}/play: a URL of the play origin that starts the game. A package anyone
 * may see gets its stable public URL (cacheable); one only members see gets a signed URL that expires
 * within about an hour (a game already loaded keeps running; files it loads later need a new URL).
 */
export async function getPackagePlayUrl(deps: Deps, actor: Actor, projectId: string, packageId: string): Promise<{ url: string }> {
  const row = await getReadyPackage(deps, actor, projectId, packageId);
  requireWebPackage(row.tags);
  const isPublic = await isPackagePublic(deps.db, row.id);
  const token = isPublic ? createPublicPlayToken(deps.keys, row.id) : createSignedPlayToken(deps.keys, row.id).token;
  return { url: playUrlOf(deps.config, token, row.entrypoint) };
}

/**
 * GET /store/projects/{p}/branches/{b}/packages/{id}/play: for anyone, a package of the current version
 * of a public branch of a public project (private ones are not_found, members included: the store is
 * the public face). Always the public URL.
 */
export async function getStorePackagePlayUrl(deps: Deps, projectId: string, branchId: string, packageId: string): Promise<{ url: string }> {
  const currentVersion = sql`(select ${branchVersions.versionId} from ${branchVersions} where ${branchVersions.branchId} = ${branchId}
    order by ${branchVersions.publishedAt} desc, ${branchVersions.id} desc limit 1)`;
  const [row] = await deps.db
    .select({ id: packages.id, tags: packages.tags, entrypoint: packages.entrypoint, status: packages.status })
    .from(packages)
    .innerJoin(projects, eq(projects.id, packages.projectId))
    .innerJoin(branches, and(eq(branches.id, branchId), eq(branches.projectId, projects.id)))
    .where(
      and(
        eq(packages.id, packageId),
        eq(projects.id, projectId),
        eq(projects.isPublic, true),
        eq(branches.isPublic, true),
        sql`exists (select 1 from ${versionPackages} where ${versionPackages.packageId} = ${packages.id} and ${versionPackages.versionId} = ${currentVersion})`,
      ),
    );
  if (!row) throw notFound('package');
  if (row.status !== 'ready') throw new AppError('not_finalized', 'The package is not ready yet');
  requireWebPackage(row.tags);
  return { url: playUrlOf(deps.config, createPublicPlayToken(deps.keys, row.id), row.entrypoint) };
}
