import { Elysia } from 'elysia';
import { z } from 'zod';
import { routes } from '../../../shared/api/routes.ts';
import { contentImageIdSchema } from '../../../shared/schemas/content-images.ts';
import { partDescriptorSchema } from '../../../shared/schemas/packages.ts';
import type { Deps } from '../../deps.ts';
import { errorResponse, toAppError } from '../../http/error-handler.ts';
import { uploadContentImagePart } from './content-images.service.ts';
import { getContentImageFile } from './files.service.ts';

/** The hand-written part 0 of a content image: raw bytes (no JSON parse), authorised by the upload token. */
export function contentImagePartRoutes(deps: Deps) {
  return new Elysia({ tags: ['Content images'] }).put(routes.contentImages.uploadPart.path, ({ params, query, request }) => uploadContentImagePart(deps, params.image, query, request.body), {
    params: z.object({ image: contentImageIdSchema }),
    parse: 'none',
    response: partDescriptorSchema,
    detail: { summary: "Upload a content image's bytes as part 0 (query token, part=0, hash = SHA-1 hex; octet-stream body)" },
  });
}

/** Headers of every image answer, 304s included. */
function imageHeaders(etag: string): Record<string, string> {
  return {
    'cache-control': 'public, max-age=31536000, immutable',
    vary: 'Accept',
    etag,
    'x-content-type-options': 'nosniff',
    // An image opened as a document runs nothing, loads nothing and is sandboxed.
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'; sandbox",
    // Other sites may embed them (store pages copied elsewhere, feeds); they are public anyway.
    'cross-origin-resource-policy': 'cross-origin',
  };
}

function ifNoneMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((item) => {
    const tag = item.trim().replace(/^W\//, '');
    return tag === etag || tag === '*';
  });
}

/**
 * GET and HEAD /content-images/{id}/{width}: on the app's origin, outside /api (serve.ts lets the path
 * through to this app rather than the client's page). Not in the OpenAPI document: these are files
 * for <img srcset>, not calls. The encoding follows Accept (Vary: Accept); the URL never changes
 * meaning, so it is cached for a year; the ETag is the bytes' hash.
 */
export function contentImageFileRoutes(deps: Deps) {
  const serve = async (request: Request, id: string, width: string): Promise<Response> => {
    try {
      const file = await getContentImageFile(deps, id, width, request.headers.get('accept'));
      const etag = `"${Bun.hash(file.bytes).toString(36)}"`;
      const headers = imageHeaders(etag);
      if (ifNoneMatches(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers });
      const body = request.method === 'HEAD' ? null : (file.bytes as Uint8Array<ArrayBuffer>);
      return new Response(body, { headers: { ...headers, 'content-type': file.mediaType, 'content-length': String(file.bytes.byteLength) } });
    } catch (error) {
      return errorResponse(toAppError(error, deps.log, { path: new URL(request.url).pathname }), { 'cache-control': 'no-store', vary: 'Accept' });
    }
  };
  const path = /^\/content-images\/([^/]+)\/([^/]+)$/;
  return (
    new Elysia({ name: 'content-image-files' })
      // Elysia answers HEAD by running the GET handler and counting its body; answered here without one.
      .onRequest(({ request }) => {
        if (request.method !== 'HEAD') return;
        const match = path.exec(new URL(request.url).pathname);
        if (!match) return;
        const decode = (text: string) => {
          try {
            return decodeURIComponent(text);
          } catch {
            return '';
          }
        };
        return serve(request, decode(match[1]!), decode(match[2]!));
      })
      .get('/content-images/:content_image/:width', ({ request, params }) => serve(request, params.content_image, params.width), { detail: { hide: true } })
  );
}
