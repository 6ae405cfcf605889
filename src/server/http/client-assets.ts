import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { buildClientFromSource, bundleFromHtmlImport, type ClientAsset, type ClientBundle, type HtmlImport } from './client-bundle.ts';
import { baseSecurityHeaders, clientPagePolicy, inlineScriptHashes } from './security-headers.ts';

type AssetRoute = (request: Request) => Response | Promise<Response>;

/** Scripts, styles and source maps compress well; images and fonts are compressed already. */
const compressible = /(javascript|css|json|svg|text\/plain)/;

export type ClientRouteOptions = {
  development: boolean;
  config: Config;
  log: Logger;
  /** Build at once rather than on the first request (`npm start`: the first visitor does not wait). */
  buildNow?: boolean;
};

/**
 * The route serving the web client. Its hashed scripts and styles are sent gzip-compressed when the
 * browser accepts it and cached for a year (their names change with their content); every other path
 * gets the page (the client routes itself), revalidated each time, with the client's CSP.
 *
 * The compiled binary embeds a bundle built ahead of time; from source (`npm start`, the tests) the
 * same split, minified bundle is built in memory, once per process (at start with buildNow, else on
 * the first request); requests arriving before it is ready wait for it. `npm run dev` (development) keeps Bun's own HTML route, which rebuilds on
 * change and reloads the page, without these headers.
 */
export function clientRoutes<Bundle extends HtmlImport>(htmlImport: Bundle, options: ClientRouteOptions): Record<string, AssetRoute | Bundle> {
  if (options.development && !htmlImport.files?.length) return { '/*': htmlImport };
  let building: Promise<ClientBundle> | undefined;
  const bundle = () => {
    building ??= bundleFromHtmlImport(htmlImport).then((embedded) => embedded ?? buildClientFromSource());
    building.catch(() => (building = undefined));
    return building;
  };
  if (options.buildNow) void bundle().catch(() => {});

  const security = baseSecurityHeaders(options.config);
  let page: { html: string; policy: string } | undefined;
  const gzipped = new Map<string, Promise<Uint8Array>>();

  return {
    '/*': async (request) => {
      let built: ClientBundle;
      try {
        built = await bundle();
      } catch (error) {
        options.log.error('building the web client failed', { error: error instanceof AggregateError ? error.errors.map(String).join('\n') : String(error) });
        return new Response('The web client could not be built; see the server log.', { status: 500, headers: { ...security, 'content-type': 'text/plain;charset=utf-8', 'cache-control': 'no-store' } });
      }
      const path = new URL(request.url).pathname;
      const asset = built.assets.get(path);
      if (asset) return serveAsset(path, asset, request, security, gzipped);
      // A script or style of an older build: a 404, not the page, so the browser reports what is missing.
      if (/\.(js|css|map)$/.test(path)) return new Response('not found', { status: 404, headers: { ...security, 'content-type': 'text/plain;charset=utf-8' } });
      page ??= { html: built.indexHtml, policy: clientPagePolicy(options.config, inlineScriptHashes(built.indexHtml)) };
      return new Response(page.html, {
        headers: { ...security, 'content-type': 'text/html;charset=utf-8', 'cache-control': 'no-cache', 'content-security-policy': page.policy },
      });
    },
  };
}

async function serveAsset(path: string, asset: ClientAsset, request: Request, security: Record<string, string>, gzipped: Map<string, Promise<Uint8Array>>): Promise<Response> {
  const headers: Record<string, string> = {
    ...security,
    'content-type': asset.contentType,
    'cache-control': 'public, max-age=31536000, immutable',
    etag: asset.etag,
    vary: 'accept-encoding',
  };
  if (request.headers.get('if-none-match') === asset.etag) return new Response(null, { status: 304, headers });
  if (!compressible.test(asset.contentType) || !/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
    return new Response((await asset.bytes()) as Uint8Array<ArrayBuffer>, { headers });
  }
  let compressed = gzipped.get(path);
  if (!compressed) {
    compressed = asset.bytes().then((bytes) => Bun.gzipSync(bytes as Uint8Array<ArrayBuffer>, { level: 9 }));
    gzipped.set(path, compressed);
  }
  return new Response((await compressed) as Uint8Array<ArrayBuffer>, { headers: { ...headers, 'content-encoding': 'gzip' } });
}
