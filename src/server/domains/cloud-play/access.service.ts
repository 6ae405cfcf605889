import { and, eq, inArray, isNull } from 'drizzle-orm';
import { z } from 'zod';
import type { internalPackageAccessSchema } from '../../../shared/schemas/cloud-play.ts';
import { recordIdSchema } from '../../../shared/schemas/text.ts';
import { cloudSessions } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import { downloadFileName, getPackageForFile } from '../packages/downloads/downloadable-package.ts';
import { signedFileUrl } from '../packages/downloads/signed-file-url.ts';
import { authenticateMachine } from './machines.service.ts';
import { heldStatuses } from './session-rows.ts';

/** The path of GET /internal/access/...: ids, '-' for no branch or version. */
export const internalAccessParams = z.object({
  project: recordIdSchema,
  branch: recordIdSchema,
  version: recordIdSchema,
  package: recordIdSchema,
});

type InternalPackageAccess = z.infer<typeof internalPackageAccessSchema>;

const orNone = (value: string) => (value === '-' ? undefined : value);

/**
 * GET /internal/access/projects/{p}/branches/{b}/versions/{v}/packages/{pkg} (machine token as bearer):
 * signed URLs (DOWNLOAD_URL_MINUTES, the downloads' own signing) of the package's archive and index,
 * only while a live session of that package (branch and version as its start item named them) is
 * assigned to the calling machine. Anything else is not_found, which tells a machine nothing about
 * packages it has no session of. The agent GETs the URLs without a bearer and reads the archive with
 * the shared reader (src/shared/archive).
 */
export async function getInternalPackageAccess(deps: Deps, token: string | undefined, rawParams: unknown, appUrl: string): Promise<InternalPackageAccess> {
  const machine = await authenticateMachine(deps.db, token);
  const params = internalAccessParams.parse(rawParams);
  const branchId = orNone(params.branch);
  const versionId = orNone(params.version);
  const [session] = await deps.db
    .select({ id: cloudSessions.id })
    .from(cloudSessions)
    .where(
      and(
        eq(cloudSessions.machineId, machine.id),
        inArray(cloudSessions.status, [...heldStatuses]),
        eq(cloudSessions.projectId, params.project),
        eq(cloudSessions.packageId, params.package),
        branchId === undefined ? isNull(cloudSessions.branchId) : eq(cloudSessions.branchId, branchId),
        versionId === undefined ? isNull(cloudSessions.versionId) : eq(cloudSessions.versionId, versionId),
      ),
    )
    .limit(1);
  if (!session) throw notFound('package');
  const item = await getPackageForFile(deps, params.package).catch(() => {
    throw notFound('package');
  });
  const lifetime = deps.config.downloads.urlSeconds;
  return {
    archiveUrl: signedFileUrl(appUrl, deps.keys, item.row.id, 'archive', downloadFileName(item, 'archive'), lifetime),
    indexUrl: signedFileUrl(appUrl, deps.keys, item.row.id, 'index', downloadFileName(item, 'index'), lifetime),
    size: item.row.totalSize,
    indexHash: item.row.indexHash,
    entrypoint: item.row.entrypoint,
  };
}
