import { z } from 'zod';
import { branchIdSchema } from '../../../../shared/schemas/branches.ts';
import { downloadQuery } from '../../../../shared/schemas/package-downloads.ts';
import { packageIdSchema } from '../../../../shared/schemas/packages.ts';
import { projectIdSchema } from '../../../../shared/schemas/projects.ts';
import { procedure, router } from '../../../trpc/init.ts';
import { getDownloadUrl, getStoreDownloadUrl, getStoreTorrent, getTorrent, torrentAsJson } from './downloads.service.ts';
import { getPackageSpace, getStorePackageSpace } from './space.service.ts';

const byPackage = z.object({ project: projectIdSchema, package: packageIdSchema });
const byStorePackage = byPackage.extend({ branch: branchIdSchema });

/** packageDownloads.*: the download, torrent and space use cases of the REST routes (project and store). */
export const packageDownloadsRouter = router({
  url: procedure
    .input(byPackage.extend(downloadQuery.shape))
    .query(({ ctx, input }) => getDownloadUrl(ctx.deps, ctx.actor, input.project, input.package, input.filter, ctx.appUrl)),
  torrent: procedure
    .input(byPackage)
    .query(async ({ ctx, input }) => torrentAsJson(await getTorrent(ctx.deps, ctx.actor, input.project, input.package, ctx.appUrl))),
  space: procedure.input(byPackage).query(({ ctx, input }) => getPackageSpace(ctx.deps, ctx.actor, input.project, input.package)),
  storeUrl: procedure
    .input(byStorePackage.extend(downloadQuery.shape))
    .query(({ ctx, input }) => getStoreDownloadUrl(ctx.deps, input.project, input.branch, input.package, input.filter, ctx.appUrl)),
  storeTorrent: procedure
    .input(byStorePackage)
    .query(async ({ ctx, input }) => torrentAsJson(await getStoreTorrent(ctx.deps, input.project, input.branch, input.package, ctx.appUrl))),
  storeSpace: procedure
    .input(byStorePackage)
    .query(({ ctx, input }) => getStorePackageSpace(ctx.deps, input.project, input.branch, input.package)),
});
