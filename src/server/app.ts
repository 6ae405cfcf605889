import { openapi } from '@elysiajs/openapi';
import { Elysia } from 'elysia';
import { z } from 'zod';
import { apiVersion } from './api-version.ts';
import type { Deps } from './deps.ts';
import { sessionRoutes } from './domains/auth/session-doors.ts';
import { contentImageFileRoutes, contentImagePartRoutes } from './domains/content-images/content-images.rest.ts';
import { jobStatusRoutes } from './domains/job-status/job-status.rest.ts';
import { localAppRoutes } from './domains/local-app/local-app.rest.ts';
import { packageDownloadRoutes } from './domains/packages/downloads/downloads.rest.ts';
import { packageUploadRoutes } from './domains/packages/uploads/uploads.rest.ts';
import { storeRoutes } from './domains/store/store.rest.ts';
import { operationList } from './operations/operations.ts';
import { derivedRestRoutes } from './operations/rest-door.ts';
import { bodyGuard } from './http/body-guard.ts';
import { errorHandler } from './http/error-handler.ts';
import { storeCacheSync } from './http/store-cache-sync.ts';
import { trpcRoutes } from './trpc/mount.ts';
import { httpStatusOfCode, serverErrorCodes } from '../shared/errors.ts';

/** The body of every refusal (spec §8), each code with its status, for the OpenAPI document. */
const errorBodySchema = {
  type: 'object' as const,
  required: ['code', 'message'],
  properties: {
    code: { type: 'string' as const, enum: [...serverErrorCodes], description: serverErrorCodes.map((code) => `${code}: ${httpStatusOfCode[code]}`).join(', ') },
    message: { type: 'string' as const },
    details: {},
  },
};


/** The whole HTTP surface except the static client, /health and /ready (served by Bun's router in serve.ts). */
export function createApp(deps: Deps) {
  return new Elysia()
    .use(errorHandler(deps.log))
    .use(bodyGuard(deps.config))
    .use(storeCacheSync(deps))
    .use(
      // The document only (docs/en/api.md points to it): the plugin's browsable page loads Scalar from a
      // CDN with an inline script and inline styles, which is blank offline and under the app's CSP.
      openapi({
        provider: null,
        specPath: '/api/openapi.json',
        documentation: {
          info: { title: `${deps.config.appName} API`, version: apiVersion, description: 'The REST API of this instance; described in its documentation at /docs/en/api.' },
          components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, schemas: { Error: errorBodySchema } },
          security: [{ bearer: [] }],
        },
        exclude: { paths: ['/trpc/*'] },
        mapJsonSchema: { zod: z.toJSONSchema },
      }),
    )
    .group('/api', (api) =>
      api
        // The operations' derived doors, then the hand-written ones (each says why in its binding).
        .use(derivedRestRoutes(deps, operationList()))
        .use(sessionRoutes(deps))
        .use(packageUploadRoutes(deps))
        .use(contentImagePartRoutes(deps))
        .use(packageDownloadRoutes(deps))
        .use(storeRoutes(deps))
        .use(localAppRoutes(deps))
        .use(jobStatusRoutes(deps)),
    )
    // Images for <img srcset>: on the app's origin, outside /api (serve.ts lets /content-images/* through).
    .use(contentImageFileRoutes(deps))
    .use(trpcRoutes(deps));
}
