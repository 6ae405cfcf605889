import { z } from 'zod';
import { okReplySchema } from '../../../shared/api/replies.ts';
import { routes } from '../../../shared/api/routes.ts';
import { createdPackageSchema, createPackageInput, finalizePackageInput, packageSchema, patchPackageInput, projectPackageSchema } from '../../../shared/schemas/packages.ts';
import { bindOperations, handwritten } from '../../operations/binding.ts';
import { startedJobSchema } from '../../../shared/schemas/jobs.ts';
import { createPackage, deletePackage, getPackage, listPackages, listVersionPackages, patchPackage } from './records/records.service.ts';
import { finalizePackage } from './uploads/finalize.service.ts';
import { resolvePackage } from './uploads/resolve.service.ts';

const reads = ['wrong_auth', 'not_found'] as const;
const writes = ['wrong_auth', 'unauthorized', 'not_found', 'insufficient_privileges'] as const;

/** Package records (list, create with its upload info, get, patch, delete, a version's) and the upload's finish. */
export const packageOperations = bindOperations('Packages', routes.packages, {
  list: {
    reply: z.array(projectPackageSchema),
    summary: 'Packages the caller may see, newest first, with the versions each is in',
    errors: reads,
    run: ({ deps, actor, params }) => listPackages(deps, actor, params.project),
  },
  create: {
    body: createPackageInput,
    reply: createdPackageSchema,
    summary: 'Create a package record and get its upload info (publishVersion)',
    errors: [...writes, 'limit_exceeded', 'not_finalized', 'out_of_storage'],
    run: ({ deps, actor, params, body, appUrl }) => createPackage(deps, actor, params.project, body, appUrl),
  },
  get: { reply: packageSchema, summary: 'A package', errors: reads, run: ({ deps, actor, params }) => getPackage(deps, actor, params.project, params.package) },
  patch: {
    body: patchPackageInput,
    reply: packageSchema,
    summary: 'Change the title (null: derived) or tags of a package (patchPackage)',
    errors: writes,
    run: ({ deps, actor, params, body }) => patchPackage(deps, actor, params.project, params.package, body),
  },
  delete: {
    reply: okReplySchema,
    summary: 'Delete a package no version lists (deletePackage)',
    errors: [...writes, 'not_empty'],
    run: async ({ deps, actor, params }) => {
      await deletePackage(deps, actor, params.project, params.package);
      return { ok: true };
    },
  },
  ofVersion: { reply: z.array(packageSchema), summary: "A version's packages, in order", errors: reads, run: ({ deps, actor, params }) => listVersionPackages(deps, actor, params.project, params.version) },
  uploadPart: handwritten('raw bytes streamed to storage as they arrive (packages/uploads/uploads.rest.ts)'),
  finalize: {
    body: finalizePackageInput,
    reply: packageSchema,
    summary: 'Finish an upload: verify and store the archive (authorised by the upload token)',
    errors: ['wrong_auth', 'not_found', 'already_finalized', 'unexpected_patch', 'not_patch', 'out_of_storage'],
    run: ({ deps, params, body }) => finalizePackage(deps, params.project, params.package, body),
  },
  resolve: {
    reply: startedJobSchema,
    summary: 'Queue the resolve job of a patch package; its output is { package: id }',
    errors: [...writes, 'not_patch', 'not_finalized'],
    run: ({ deps, actor, params }) => resolvePackage(deps, actor, params.project, params.package),
  },
});
