import { Elysia } from 'elysia';
import { z } from 'zod';
import { routes } from '../../../shared/api/routes.ts';
import type { Deps } from '../../deps.ts';
import { errorResponse, toAppError } from '../../http/error-handler.ts';
import { attachmentDisposition, serveRanged } from '../../http/range.ts';
import { getLocalAppFile } from './local-app.service.ts';


/** The reply to GET or HEAD of a platform's build. */
async function serveBuild(deps: Deps, request: Request, platform: string): Promise<Response> {
  const file = await getLocalAppFile(deps, platform);
  // Ranged (a cut download resumes with curl -C -), sent from the file so Content-Length is set.
  return serveRanged(request, {
    size: file.size,
    etag: `"${file.size.toString(16)}-${Math.floor(file.modified).toString(16)}"`,
    headers: {
      'content-type': 'application/octet-stream',
      'content-disposition': attachmentDisposition(file.fileName),
      'cache-control': 'no-cache',
    },
    open: (start, end) => Bun.file(file.path).slice(start, end).stream(),
    file: async () => file.path,
  });
}

const platformParams = z.object({ platform: z.string().max(64) });
const headPath = /^\/api\/local-app\/([^/]+)$/;

/** The hand-written download of a local app build: a file with Range and HEAD (no sign-in). */
export function localAppRoutes(deps: Deps) {
  return new Elysia({ tags: ['Local app'] })
    // Elysia answers HEAD on a path with parameters by running the GET handler and counting the body it
    // sends (none here, so a length of 0): HEAD of a build is answered here, its length from the file.
    .onRequest(async ({ request }) => {
      if (request.method !== 'HEAD') return;
      const match = headPath.exec(new URL(request.url).pathname);
      if (!match) return;
      try {
        // A malformed escape names no platform (the service refuses anything outside the list).
        let platform = '';
        try {
          platform = decodeURIComponent(match[1]!);
        } catch {}
        return await serveBuild(deps, request, platform);
      } catch (error) {
        return errorResponse(toAppError(error, deps.log, { path: new URL(request.url).pathname }));
      }
    })
    .get(
      routes.localApp.download.path,
      ({ params, request }) => serveBuild(deps, request, params.platform),
      {
        params: platformParams,
        detail: { summary: 'The local app for a platform (linux-x64, linux-arm64, darwin-x64, darwin-arm64, windows-x64); Range and HEAD supported' },
      },
    );
}
