import { procedure, router } from '../../trpc/init.ts';
import { listLocalAppDownloads } from './local-app.service.ts';

/** localApp.*: the builds of the local companion app offered for download (GET /api/local-app). */
export const localAppRouter = router({
  downloads: procedure.query(({ ctx }) => listLocalAppDownloads(ctx.deps, ctx.appUrl)),
});
