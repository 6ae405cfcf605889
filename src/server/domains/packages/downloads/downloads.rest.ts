import { Elysia } from 'elysia';
import { z } from 'zod';
import { routes } from '../../../../shared/api/routes.ts';
import { branchIdSchema } from '../../../../shared/schemas/branches.ts';
import { packageIdSchema } from '../../../../shared/schemas/packages.ts';
import { projectIdSchema } from '../../../../shared/schemas/projects.ts';
import type { Deps } from '../../../deps.ts';
import { actorResolver } from '../../../http/actor.ts';
import { appUrlOf } from '../../../http/app-url.ts';
import { errorResponse, toAppError } from '../../../http/error-handler.ts';
import { attachmentDisposition, serveRanged } from '../../../http/range.ts';
import { fileCorsHeaders, openPackageFile, type FileRequest } from './download-files.ts';
import { getStoreTorrent, getTorrent } from './downloads.service.ts';

const packageParams = z.object({ project: projectIdSchema, package: packageIdSchema });
const storeParams = packageParams.extend({ branch: branchIdSchema });

function torrentResponse(result: { fileName: string; torrent: Uint8Array }): Response {
  return new Response(result.torrent as Uint8Array<ArrayBuffer>, {
    headers: { 'content-type': 'application/x-bittorrent', 'content-disposition': attachmentDisposition(result.fileName), 'cache-control': 'private, no-store' },
  });
}

/** /api/files answers with CORS headers even when it fails, so a browser reader sees the status. */
async function serveFile(deps: Deps, request: Request, file: FileRequest): Promise<Response> {
  try {
    const offer = { acceptEncoding: request.headers.get('accept-encoding'), availableDictionary: request.headers.get('available-dictionary') };
    return await serveRanged(request, await openPackageFile(deps, file, offer));
  } catch (error) {
    return errorResponse(toAppError(error, deps.log, { path: new URL(request.url).pathname }), fileCorsHeaders);
  }
}

/** /api/files/{package}/{kind}/{expires}/{signature}/{name} or /api/files/{package}/zip/public/{name}. */
const headPath = /^\/api\/files\/([^/]+)\/([^/]+)\/(?:(public)\/[^/]+|([^/]+)\/([^/]+)\/[^/]+)$/;

const preflight = () =>
  new Response(null, {
    status: 204,
    headers: {
      ...fileCorsHeaders,
      'access-control-allow-methods': 'GET, HEAD, OPTIONS',
      'access-control-allow-headers': 'range, if-range, if-none-match',
      'access-control-max-age': '86400',
    },
  });

/**
 * The hand-written download doors: the .torrent files (project and store) and the /files the download
 * URLs point to (Range, HEAD, CORS; a file, not a call). URLs and space are operations (downloads.operations.ts).
 */
export function packageDownloadRoutes(deps: Deps) {
  const signedFile = ({ request, params }: { request: Request; params: Record<string, string> }) =>
    serveFile(deps, request, { packageId: params.package!, kind: params.kind!, expires: params.expires!, signature: params.signature! });
  const publicFile = ({ request, params }: { request: Request; params: Record<string, string> }) =>
    serveFile(deps, request, { packageId: params.package!, kind: params.kind!, public: true });
  const signedPath = routes.packageDownloads.file.path;
  const publicPath = routes.packageDownloads.publicFile.path;
  const fileDetail = { detail: { summary: 'Bytes of a download URL (Range, HEAD; no bearer needed; an index also as an RFC 9842 dcz delta against an older index of the project)', tags: ['Packages'] } };
  return new Elysia({ tags: ['Packages'] })
    // Elysia answers HEAD on a path with parameters by running the GET handler and reading its whole
    // body to count it (a full ZIP build); HEAD of /api/files is answered here from the layout instead.
    .onRequest(({ request }) => {
      if (request.method !== 'HEAD') return;
      const match = headPath.exec(new URL(request.url).pathname);
      if (!match) return;
      const [, packageId = '', kind = '', isPublic, expires = '', signature = ''] = match.map((part) => (part === undefined ? undefined : decodeURIComponent(part)));
      return serveFile(deps, request, isPublic ? { packageId, kind, public: true } : { packageId, kind, expires, signature });
    })
    .get(signedPath, signedFile, fileDetail)
    .options(signedPath, preflight, { detail: { hide: true } })
    .get(publicPath, publicFile, { detail: { summary: "A public package's ZIP (torrent web seed)", tags: ['Packages'] } })
    .options(publicPath, preflight, { detail: { hide: true } })
    .use(actorResolver(deps))
    .get(
      routes.packageDownloads.torrent.path,
      async ({ actor, params, request }) => torrentResponse(await getTorrent(deps, actor, params.project, params.package, appUrlOf(deps.config, request))),
      { params: packageParams, detail: { summary: "A .torrent of the package's ZIP with the ZIP URL as web seed (BEP 19)" } },
    )
    .get(
      routes.packageDownloads.storeTorrent.path,
      async ({ params, request }) => torrentResponse(await getStoreTorrent(deps, params.project, params.branch, params.package, appUrlOf(deps.config, request))),
      { params: storeParams, detail: { summary: "A .torrent of a store package's ZIP", tags: ['Store'] } },
    );
}
