import { z } from 'zod';
import { routes } from '../../../../shared/api/routes.ts';
import { branchIdSchema } from '../../../../shared/schemas/branches.ts';
import { downloadQuery, downloadUrlSchema, packageSpaceSchema } from '../../../../shared/schemas/package-downloads.ts';
import { packageIdSchema } from '../../../../shared/schemas/packages.ts';
import { projectIdSchema } from '../../../../shared/schemas/projects.ts';
import { bindOperations, handwritten } from '../../../operations/binding.ts';
import { procedure } from '../../../trpc/init.ts';
import { getDownloadUrl, getStoreDownloadUrl, getStoreTorrent, getTorrent, torrentAsJson } from './downloads.service.ts';
import { getPackageSpace, getStorePackageSpace } from './space.service.ts';

const byPackage = z.object({ project: projectIdSchema, package: packageIdSchema });
const byStorePackage = byPackage.extend({ branch: branchIdSchema });
const reads = ['wrong_auth', 'not_found'] as const;
const store = ['not_found'] as const;
const torrentDoor = 'REST answers the .torrent file itself (downloads.rest.ts); tRPC its bytes in JSON for a page to save';

/** Download URLs, torrents and space of a package (a member's project route, and the store's of a public branch). */
export const packageDownloadOperations = bindOperations('Packages', routes.packageDownloads, {
  url: {
    query: downloadQuery,
    reply: downloadUrlSchema,
    summary: 'A signed URL (DOWNLOAD_URL_MINUTES, default 60) of the archive, its index (filter=index) or a ZIP (filter=zip)',
    errors: [...reads, 'not_finalized'],
    run: ({ deps, actor, params, query, appUrl }) => getDownloadUrl(deps, actor, params.project, params.package, query.filter, appUrl),
  },
  torrent: handwritten(
    torrentDoor,
    procedure.input(byPackage).query(async ({ ctx, input }) => torrentAsJson(await getTorrent(ctx.deps, ctx.actor, input.project, input.package, ctx.appUrl))),
  ),
  space: {
    reply: packageSpaceSchema,
    summary: 'Bytes of the files, of the stored chunks, and of the chunks no other package of the project has',
    errors: reads,
    run: ({ deps, actor, params }) => getPackageSpace(deps, actor, params.project, params.package),
  },
  storeUrl: {
    query: downloadQuery,
    reply: downloadUrlSchema,
    summary: "Download URL of a package of a public branch's current version",
    errors: store,
    run: ({ deps, params, query, appUrl }) => getStoreDownloadUrl(deps, params.project, params.branch, params.package, query.filter, appUrl),
  },
  storeTorrent: handwritten(
    torrentDoor,
    procedure
      .input(byStorePackage)
      .query(async ({ ctx, input }) => torrentAsJson(await getStoreTorrent(ctx.deps, input.project, input.branch, input.package, ctx.appUrl))),
  ),
  storeSpace: {
    reply: packageSpaceSchema,
    summary: 'Space of a store package',
    errors: store,
    run: ({ deps, params }) => getStorePackageSpace(deps, params.project, params.branch, params.package),
  },
  file: handwritten('bytes of a file with Range, HEAD from the layout and CORS, authorised by the signature in its path (downloads.rest.ts)'),
  publicFile: handwritten("a public package's ZIP as a torrent web seed: bytes with Range and CORS (downloads.rest.ts)"),
});
