import { Elysia } from 'elysia';
import { z } from 'zod';
import { localAppDownloadsSchema } from '../../../shared/schemas/local-helper.ts';
import type { Deps } from '../../deps.ts';
import { errorResponse, toAppError } from '../../http/error-handler.ts';
import { attachmentDisposition, serveRanged } from '../../http/range.ts';
import { getLocalAppFile, listLocalAppDownloads } from './local-app.service.ts';

const appUrlOf = (deps: Deps, request: Request) => deps.config.publicUrl ?? new URL(request.url).origin;

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

/** The local companion app's builds (no sign-in: players download it). */
export function localAppRoutes(deps: Deps) {
  return new Elysia({ prefix: '/local-app', tags: ['Local app'] })
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
      '',
      async ({ request, set }) => {
        set.headers['cache-control'] = 'no-cache';
        return listLocalAppDownloads(deps, appUrlOf(deps, request));
      },
      { response: localAppDownloadsSchema, detail: { summary: 'The local app builds this server offers, one per platform, with their download URLs' } },
    )
    .get(
      '/:platform',
      ({ params, request }) => serveBuild(deps, request, params.platform),
      {
        params: platformParams,
        detail: { summary: 'The local app for a platform (linux-x64, linux-arm64, darwin-x64, darwin-arm64, windows-x64); Range and HEAD supported' },
      },
    );
}
