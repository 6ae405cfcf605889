import { Elysia } from 'elysia';
import { z } from 'zod';
import { finalizePackageInput, packageIdSchema, packageSchema, partDescriptorSchema } from '../../../../shared/schemas/packages.ts';
import { startedJobSchema } from '../../../../shared/schemas/jobs.ts';
import { projectIdSchema } from '../../../../shared/schemas/projects.ts';
import type { Deps } from '../../../deps.ts';
import { actorResolver } from '../../../http/actor.ts';
import { finalizePackage } from './finalize.service.ts';
import { uploadPart } from './parts.service.ts';
import { resolvePackage } from './resolve.service.ts';

const packageParams = z.object({ project: projectIdSchema, package: packageIdSchema });

/** Uploads: parts (authorised by the upload token), finalize, and the resolve job of a patch. */
export function packageUploadRoutes(deps: Deps) {
  return new Elysia({ tags: ['Packages'] })
    .use(actorResolver(deps))
    .put('/projects/:project/packages/:package/finalize', ({ params, body }) => finalizePackage(deps, params.project, params.package, body), {
      params: packageParams,
      body: finalizePackageInput,
      response: packageSchema,
      detail: { summary: 'Finish an upload: verify and store the archive (authorised by the upload token)' },
    })
    .post('/projects/:project/packages/:package/resolve', ({ actor, params }) => resolvePackage(deps, actor, params.project, params.package), {
      params: packageParams,
      response: startedJobSchema,
      detail: { summary: 'Queue the resolve job of a patch package; its output is { package: id }' },
    })
    .put('/uploads/:package', ({ params, query, request }) => uploadPart(deps, params.package, query, request.body), {
      params: z.object({ package: packageIdSchema }),
      parse: 'none',
      response: partDescriptorSchema,
      detail: { summary: 'Upload one part (query token, part, hash = SHA-1 hex; octet-stream body)' },
    });
}
