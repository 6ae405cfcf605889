import { Elysia } from 'elysia';
import { z } from 'zod';
import { createdPackageSchema, createPackageInput, packageIdSchema, packageSchema, patchPackageInput, projectPackageSchema } from '../../../../shared/schemas/packages.ts';
import { projectIdSchema } from '../../../../shared/schemas/projects.ts';
import { versionIdSchema } from '../../../../shared/schemas/versions.ts';
import type { Deps } from '../../../deps.ts';
import { actorResolver } from '../../../http/actor.ts';
import { createPackage, deletePackage, getPackage, listPackages, listVersionPackages, patchPackage } from './records.service.ts';

const ok = z.object({ ok: z.boolean() });
const params = z.object({ project: projectIdSchema });
const packageParams = params.extend({ package: packageIdSchema });

/** Package records: list, create (with its upload info), get, patch, delete, and a version's packages. */
export function packageRecordRoutes(deps: Deps) {
  const appUrlOf = (request: Request) => deps.config.publicUrl ?? new URL(request.url).origin;
  return new Elysia({ tags: ['Packages'] })
    .use(actorResolver(deps))
    .get('/projects/:project/packages', ({ actor, params }) => listPackages(deps, actor, params.project), {
      params,
      response: z.array(projectPackageSchema),
      detail: { summary: 'Packages the caller may see, newest first, with the versions each is in' },
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
    .get(
      '/projects/:project/versions/:version/packages',
      ({ actor, params }) => listVersionPackages(deps, actor, params.project, params.version),
      { params: params.extend({ version: versionIdSchema }), response: z.array(packageSchema), detail: { summary: "A version's packages, in order" } },
    );
}
