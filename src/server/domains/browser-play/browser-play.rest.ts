import { Elysia } from 'elysia';
import { z } from 'zod';
import { branchIdSchema } from '../../../shared/schemas/branches.ts';
import { packageIdSchema } from '../../../shared/schemas/packages.ts';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import type { Deps } from '../../deps.ts';
import { actorResolver } from '../../http/actor.ts';
import { getPackagePlayUrl, getStorePackagePlayUrl } from './browser-play.service.ts';

const playUrlSchema = z.object({ url: z.string() });

/** The play URLs of os:web packages (the play origin itself is a listener of its own: src/server/browser-play). */
export function browserPlayRoutes(deps: Deps) {
  const store = new Elysia({ tags: ['Store'] }).get(
    '/store/projects/:project/branches/:branch/packages/:package/play',
    async ({ params, set }) => {
      set.headers['cache-control'] = 'no-store';
      return getStorePackagePlayUrl(deps, params.project, params.branch, params.package);
    },
    {
      params: z.object({ project: projectIdSchema, branch: branchIdSchema, package: packageIdSchema }),
      response: playUrlSchema,
      detail: { summary: "URL that plays a web package of a public branch's current version on the play origin" },
    },
  );
  const project = new Elysia({ tags: ['Packages'] })
    .use(actorResolver(deps))
    .get(
      '/projects/:project/packages/:package/play',
      async ({ actor, params, set }) => {
        set.headers['cache-control'] = 'no-store';
        return getPackagePlayUrl(deps, actor, params.project, params.package);
      },
      {
        params: z.object({ project: projectIdSchema, package: packageIdSchema }),
        response: playUrlSchema,
        detail: { summary: 'URL that plays an os:web package on the play origin (signed and expiring unless the package is public)' },
      },
    );
  return new Elysia().use(store).use(project);
}
