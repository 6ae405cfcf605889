import { Elysia } from 'elysia';
import { z } from 'zod';
import { routes } from '../../../../shared/api/routes.ts';
import { packageIdSchema, partDescriptorSchema } from '../../../../shared/schemas/packages.ts';
import type { Deps } from '../../../deps.ts';
import { uploadPart } from './parts.service.ts';

/** The hand-written part upload: raw bytes (no JSON parse), authorised by the upload token in the query. */
export function packageUploadRoutes(deps: Deps) {
  return new Elysia({ tags: ['Packages'] }).put(routes.packages.uploadPart.path, ({ params, query, request }) => uploadPart(deps, params.package, query, request.body), {
    params: z.object({ package: packageIdSchema }),
    parse: 'none',
    response: partDescriptorSchema,
    detail: { summary: 'Upload one part (query token, part, hash = SHA-1 hex; octet-stream body)' },
  });
}
