import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { buildClientFromSource, bundleFromHtmlImport, type ClientAsset, type ClientBundle, type HtmlImport } from './client-bundle.ts';
import { escapeAttribute } from './html-escape.ts';
import type { PageHead } from './page-head-html.ts';
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
  /**
   * The head of the page a request asks for (issue 21: public store pages' titles, descriptions and
   * link previews, domains/store/store-page-head.ts): written in place of the shell's `<title>`, with
   * its `<html lang dir>`. A failure is logged and answered with the shell as built. The same PageHead
   * object for the same head (it keeps them): its page's bytes, and their gzip, are made once.
   */
  pageHead?: (request: Request, url: URL) => Promise<PageHead>;
  /**
   * The status of the page a request asks for: 404 where its screen says "not found" (an unknown path,
   * a private or unknown project: domains/pages/page-status.service.ts), so crawlers index no soft 404.
   * The body is the same app shell either way. A failure is logged and answered 200.
   */
  pageStatus?: (request: Request, url: URL) => Promise<number>;
};

/**
 * The built page cut where a head goes: before `<html …>`, the tag's other attributes, up to the
 * `<title>`, and after it. Without a `<title>` the head goes before `</head>`.
 */
type ShellParts = { before: string; htmlAttributes: string; middle: string; after: string };

function shellPartsOf(html: string): ShellParts | undefined {
  const htmlTag = /<html\b([^>]*)>/i.exec(html);
  if (!htmlTag) return undefined;
  const rest = html.slice(htmlTag.index + htmlTag[0].length);
  const title = /<title>[\s\S]*?<\/title>/i.exec(rest);
  const headEnd = rest.search(/<\/head>/i);
  const at = title ? { start: title.index, end: title.index + title[0].length } : headEnd >= 0 ? { start: headEnd, end: headEnd } : undefined;
  if (!at) return undefined;
  return {
    before: html.slice(0, htmlTag.index),
    htmlAttributes: htmlTag[1]!.replace(/\s(lang|dir)=("[^"]*"|'[^']*'|[^\s>]*)/gi, ''),
    middle: rest.slice(0, at.start),
    after: rest.slice(at.end),
  };
}

/** A page's bytes as sent: plain, and gzip for clients that take it (HTML of public data: nothing secret to guess at). */
type PageBytes = { plain: Uint8Array<ArrayBuffer>; gzip: Uint8Array<ArrayBuffer> | undefined };

function withHead(parts: ShellParts, head: PageHead): string {
  return `${parts.before}<html${parts.htmlAttributes} lang="${escapeAttribute(head.lang)}" dir="${head.dir === 'rtl' ? 'rtl' : 'ltr'}">${parts.middle}${head.head}${parts.after}`;
}

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
    building ??= bundleFromHtmlImport(htmlImport).then((embedded) => embedded ?? buildClientFromSource(options.log));
    building.catch(() => (building = undefined));
    return building;
  };
  if (options.buildNow) void bundle().catch(() => {});

  const security = baseSecurityHeaders(options.config);
  let page: { html: string; policy: string; parts: ShellParts | undefined } | undefined;
  const gzipped = new Map<string, Promise<Uint8Array>>();
  // Dropped with the head (the store page head keeps its heads with the cached store page).
  const pages = new WeakMap<PageHead, PageBytes>();

  return {
    '/*': async (request) => {
      let built: ClientBundle;
      try {
        built = await bundle();
      } catch (error) {
        options.log.error('building the web client failed', { error: error instanceof AggregateError ? error.errors.map(String).join('\n') : String(error) });
        return new Response('The web client could not be built; see the server log.', { status: 500, headers: { ...security, 'content-type': 'text/plain;charset=utf-8', 'cache-control': 'no-store' } });
      }
      const url = new URL(request.url);
      const path = url.pathname;
      const asset = built.assets.get(path);
      if (asset) return serveAsset(path, asset, request, security, gzipped);
      // Crawlers and some browsers ask for /favicon.ico without reading the page: the built ICO, under
      // a name that does not change with its content (so cached for a day, not a year).
      if (path === '/favicon.ico') {
        const icon = [...built.assets].find(([name]) => /^\/favicon[\w.-]*\.ico$/.test(name));
        if (icon) return serveAsset(icon[0], icon[1], request, security, gzipped, 'public, max-age=86400');
      }
      // A script or style of an older build: a 404, not the page, so the browser reports what is missing.
      if (/\.(js|css|map)$/.test(path)) return new Response('not found', { status: 404, headers: { ...security, 'content-type': 'text/plain;charset=utf-8' } });
      // The policy hashes the shell's own inline script; a head adds only data (JSON-LD), never a script.
      page ??= { html: built.indexHtml, policy: clientPagePolicy(options.config, inlineScriptHashes(built.indexHtml)), parts: shellPartsOf(built.indexHtml) };
      const headers: Record<string, string> = { ...security, 'content-type': 'text/html;charset=utf-8', 'cache-control': 'no-cache', 'content-security-policy': page.policy };
      const statusOf = options.pageStatus;
      const status = statusOf
        ? statusOf(request, url).catch((error: unknown) => {
            options.log.error('finding the page status failed; answered 200', { path, error: String(error) });
            return 200;
          })
        : Promise.resolve(200);
      if (!options.pageHead || !page.parts) return new Response(page.html, { headers, status: await status });
      // The head speaks the address's ?lang= or else the browser's language.
      headers.vary = 'accept-language, accept-encoding';
      let head: PageHead | undefined;
      try {
        head = await options.pageHead(request, url);
      } catch (error) {
        options.log.error('writing the page head failed; the shell is sent as built', { path, error: String(error) });
        return new Response(page.html, { headers, status: await status });
      }
      let bytes = pages.get(head);
      if (!bytes) pages.set(head, (bytes = { plain: new TextEncoder().encode(withHead(page.parts, head)), gzip: undefined }));
      if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
        bytes.gzip ??= Bun.gzipSync(bytes.plain, { level: 9 });
        return new Response(bytes.gzip, { headers: { ...headers, 'content-encoding': 'gzip' }, status: await status });
      }
      return new Response(bytes.plain, { headers, status: await status });
    },
  };
}

async function serveAsset(
  path: string,
  asset: ClientAsset,
  request: Request,
  security: Record<string, string>,
  gzipped: Map<string, Promise<Uint8Array>>,
  cacheControl = 'public, max-age=31536000, immutable',
): Promise<Response> {
  const headers: Record<string, string> = {
    ...security,
    'content-type': asset.contentType,
    'cache-control': cacheControl,
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
