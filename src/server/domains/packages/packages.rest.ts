import { Elysia } from 'elysia';
import { z } from 'zod';
import {
  createdPackageSchema,
  createPackageInput,
  finalizePackageInput,
  packageIdSchema,
  packageSchema,
  partDescriptorSchema,
  patchPackageInput,
} from '../../../shared/schemas/packages.ts';
import { startedJobSchema } from '../../../shared/schemas/jobs.ts';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { versionIdSchema } from '../../../shared/schemas/versions.ts';
import type { Deps } from '../../deps.ts';
import { actorResolver } from '../../http/actor.ts';
import { finalizePackage } from './finalize.service.ts';
import { uploadPart } from './parts.service.ts';
import { createPackage, deletePackage, getPackage, listPackages, listVersionPackages, patchPackage } from './packages.service.ts';
import { resolvePackage } from './resolve.service.ts';

const ok = z.object({ ok: z.boolean() });
const params = z.object({ project: projectIdSchema });
const packageParams = params.extend({ package: packageIdSchema });

export function packagesRoutes(deps: Deps) {
  const appUrlOf = (request: Request) => deps.config.publicUrl ?? new URL(request.url).origin;
  return new Elysia({ tags: ['Packages'] })
    .use(actorResolver(deps))
    .get('/projects/:project/packages', ({ actor, params }) => listPackages(deps, actor, params.project), {
      params,
      response: z.array(packageSchema),
      detail: { summary: 'Packages the caller may see, newest first' },
    })
    .post('/projects/:project/packages', ({ actor, params, body, request }) => createPackage(deps, actor, params.project, body, appUrlOf(request)), {
      params,
      body: createPackageInput,
      response: createdPackageSchema,
      detail: { summary: 'Create a package record and get its upload info (publishVersion)' },
    })
    .get('/projects/:project/packages/:package', ({ actor, params }) => getPackage(deps, actor, params.project, params.package), {
      params: packageParams,
      response: packageSchema,
      detail: { summary: 'A package' },
    })
    .patch('/projects/:project/packages/:package', ({ actor, params, body }) => patchPackage(deps, actor, params.project, params.package, body), {
      params: packageParams,
      body: patchPackageInput,
      response: packageSchema,
      detail: { summary: 'Change the title (null: derived) or tags of a package (patchPackage)' },
    })
    .delete(
      '/projects/:project/packages/:package',
      async ({ actor, params }) => {
        await deletePackage(deps, actor, params.project, params.package);
        return { ok: true };
      },
      { params: packageParams, response: ok, detail: { summary: 'Delete a package no version lists (deletePackage)' } },
    )
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
    .get(
      '/projects/:project/versions/:version/packages',
      ({ actor, params }) => listVersionPackages(deps, actor, params.project, params.version),
      { params: params.extend({ version: versionIdSchema }), response: z.array(packageSchema), detail: { summary: "A version's packages, in order" } },
    )
    .put('/uploads/:package', ({ params, query, request }) => uploadPart(deps, params.package, query, request.body), {
      params: z.object({ package: packageIdSchema }),
      parse: 'none',
      response: partDescriptorSchema,
      detail: { summary: 'Upload one part (query token, part, hash = SHA-1 hex; octet-stream body)' },
    });
}
