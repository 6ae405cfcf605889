import { basename } from 'node:path';

type HtmlBundle = { index: string; files?: { path: string; loader: string; headers: Record<string, string> }[] };
type AssetRoute = (request: Request) => Response | Promise<Response>;

/** Scripts, styles and source maps compress well; images and fonts are compressed already. */
const compressible = /\.(js|css|map|json|svg|txt)$/;

/**
 * Routes serving the client. A bundle built ahead of time (the compiled binary) lists its files: its
 * hashed scripts and styles are served gzip-compressed when the browser accepts it and cached for a
 * year (their names change with their content), and its index answers every other path (SPA
 * fallback). Bun's own route for an HTML import serves files uncompressed and would shadow ours, so it
 * is used only for a bundle made at start-up from source, which has no file list.
 */
export function clientRoutes<Bundle extends HtmlBundle>(bundle: Bundle): Record<string, AssetRoute | Bundle> {
  const index = bundle.files?.find((file) => file.loader === 'html');
  if (!index) return { '/*': bundle };
  const routes: Record<string, AssetRoute | Bundle> = {
    '/*': () => new Response(Bun.file(index.path), { headers: { 'content-type': 'text/html;charset=utf-8', 'cache-control': 'no-cache' } }),
  };
  for (const file of bundle.files ?? []) {
    const name = basename(file.path);
    if (file.loader === 'html') continue;
    if (!compressible.test(name)) {
      routes[`/${name}`] = () => new Response(Bun.file(file.path), { headers: { ...file.headers, 'cache-control': 'public, max-age=31536000, immutable' } });
      continue;
    }
    let gzipped: Promise<Uint8Array> | undefined;
    routes[`/${name}`] = async (request) => {
      const headers: Record<string, string> = {
        'content-type': file.headers['content-type'] ?? 'application/octet-stream',
        'cache-control': 'public, max-age=31536000, immutable',
        vary: 'accept-encoding',
      };
      if (file.headers.etag) headers.etag = file.headers.etag;
      if (!/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) return new Response(Bun.file(file.path), { headers });
      gzipped ??= Bun.file(file.path).bytes().then((bytes) => Bun.gzipSync(bytes, { level: 9 }));
      return new Response((await gzipped) as Uint8Array<ArrayBuffer>, { headers: { ...headers, 'content-encoding': 'gzip' } });
    };
  }
  return routes;
}
