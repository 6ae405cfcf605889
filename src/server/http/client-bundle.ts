import { basename, join } from 'node:path';
import type { Logger } from '../logger.ts';

/** One file of the built client, served at `/${name}`; its name changes with its content. */
export type ClientAsset = { contentType: string; etag: string; bytes(): Promise<Uint8Array> };

/** The built web client: the page every app path answers with, and its hashed scripts and styles. */
export type ClientBundle = { indexHtml: string; assets: Map<string, ClientAsset> };

/** What Bun gives for an HTML import of a compiled executable: the files it embedded. */
export type HtmlImport = { index: string; files?: { path: string; loader: string; headers: Record<string, string> }[] };

const indexEntry = join(import.meta.dir, '..', '..', 'client', 'index.html');

/** The compiled binary's client, bundled ahead of time; undefined when running from source. */
export async function bundleFromHtmlImport(htmlImport: HtmlImport): Promise<ClientBundle | undefined> {
  const index = htmlImport.files?.find((file) => file.loader === 'html');
  if (!index) return undefined;
  const assets = new Map<string, ClientAsset>();
  for (const file of htmlImport.files ?? []) {
    if (file === index) continue;
    assets.set(`/${basename(file.path)}`, {
      contentType: file.headers['content-type'] ?? 'application/octet-stream',
      etag: file.headers.etag ?? `"${basename(file.path)}"`,
      bytes: () => Bun.file(file.path).bytes(),
    });
  }
  return { indexHtml: await Bun.file(index.path).text(), assets };
}

/**
 * Builds the client from source the way the binary embeds it (minified, split into hashed chunks,
 * React's production build), in memory. `npm start` and the tests serve this; `npm run dev` keeps
 * Bun's own HTML route for live reload. A build of the whole client takes about a second here.
 */
export function buildClientFromSource(log?: Logger): Promise<ClientBundle> {
  // One build per process: the source does not change under a server that is not in development.
  sourceBuild ??= buildTold(log);
  sourceBuild.catch(() => (sourceBuild = undefined));
  return sourceBuild;
}

let sourceBuild: Promise<ClientBundle> | undefined;

/** A first `npm start` waits for this build (seconds, up to a minute on a slow machine): the log says so. */
async function buildTold(log: Logger | undefined): Promise<ClientBundle> {
  const started = performance.now();
  log?.info('building the web client from source; pages answer once it is built (up to a minute on a slow machine)');
  const built = await buildOnce();
  log?.info('web client built', { seconds: Math.round(performance.now() - started) / 1000 });
  return built;
}

async function buildOnce(): Promise<ClientBundle> {
  const result = await Bun.build({
    entrypoints: [indexEntry],
    target: 'browser',
    format: 'esm',
    splitting: true,
    minify: true,
    sourcemap: 'linked',
    // Absolute references: the page answers deep links such as /projects/x/branches/y too.
    publicPath: '/',
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  });
  if (!result.success) throw new AggregateError(result.logs, 'building the web client failed');
  let indexHtml: string | undefined;
  const assets = new Map<string, ClientAsset>();
  for (const output of result.outputs) {
    const name = basename(output.path);
    if (output.type.startsWith('text/html')) {
      indexHtml = await output.text();
      continue;
    }
    const bytes = new Uint8Array(await output.arrayBuffer());
    assets.set(`/${name}`, { contentType: output.type, etag: `"${output.hash ?? name}"`, bytes: async () => bytes });
  }
  if (indexHtml === undefined) throw new Error('building the web client gave no index.html');
  return { indexHtml, assets };
}
