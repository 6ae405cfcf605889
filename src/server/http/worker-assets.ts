import { join } from 'node:path';
import type { Logger } from '../logger.ts';

/**
 * The upload worker (src/client/upload/worker/upload-worker.ts) as ONE self-contained script. Bun's
 * HTML bundler does not bundle `new Worker(new URL(...))`, and a lazily imported chunk of the app
 * cannot be a worker (it imports shared chunks that start the app), so the worker is its own build:
 *
 * - from source (tests, dev server, `npm start`): built on the first request of the process (in
 *   development on every request, so edits show), served at UPLOAD_WORKER_PATH with `no-cache` and
 *   an ETag (the client bundle cannot know a hash there, so the name is fixed and revalidated);
 * - compiled binary: build-binary.ts builds it ahead of time and embeds the code
 *   (CARTRIDGE_EMBEDDED_UPLOAD_WORKER); the client bundle gets its hashed, immutable path
 *   (CARTRIDGE_UPLOAD_WORKER_URL, see upload-client.ts), and the fixed path stays as a fallback.
 */
declare const CARTRIDGE_EMBEDDED_UPLOAD_WORKER: string | undefined;

/** The fixed path, known to the client without any build-time help. */
const UPLOAD_WORKER_PATH = '/upload-worker.js';

const entry = join(import.meta.dir, '..', '..', 'client', 'upload', 'worker', 'upload-worker.ts');

type AssetRoute = (request: Request) => Response | Promise<Response>;

/** Builds the worker into one browser script (no imports, no exports, no chunks). */
export async function buildUploadWorker(options: { production: boolean }): Promise<string> {
  const result = await Bun.build({
    entrypoints: [entry],
    target: 'browser',
    format: 'esm',
    splitting: false,
    minify: options.production,
    sourcemap: options.production ? 'none' : 'inline',
    define: { 'process.env.NODE_ENV': JSON.stringify(options.production ? 'production' : 'development') },
  });
  const output = result.outputs.find((item) => item.kind === 'entry-point');
  if (!result.success || !output) throw new AggregateError(result.logs, 'building the upload worker failed');
  return output.text();
}

function contentHash(code: string): string {
  return new Bun.CryptoHasher('sha256').update(code).digest('hex').slice(0, 16);
}

/** The immutable path of a built worker: its name changes with its content. */
export function hashedUploadWorkerPath(code: string): string {
  return `/assets/upload-worker-${contentHash(code)}.js`;
}

type Built = { code: string; etag: string; gzipped?: Uint8Array };

function serve(built: Built, request: Request, cacheControl: string): Response {
  const headers: Record<string, string> = {
    'content-type': 'text/javascript;charset=utf-8',
    'cache-control': cacheControl,
    etag: built.etag,
    vary: 'accept-encoding',
  };
  if (request.headers.get('if-none-match') === built.etag) return new Response(null, { status: 304, headers });
  if (!/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) return new Response(built.code, { headers });
  built.gzipped ??= Bun.gzipSync(new TextEncoder().encode(built.code), { level: 9 });
  return new Response(built.gzipped as Uint8Array<ArrayBuffer>, { headers: { ...headers, 'content-encoding': 'gzip' } });
}

const failed = (error: unknown, log: Logger['error']) => {
  log('upload worker build failed', { error: error instanceof AggregateError ? error.errors.map(String).join('\n') : String(error) });
  return new Response('upload worker build failed', { status: 500, headers: { 'content-type': 'text/plain', 'cache-control': 'no-store' } });
};

/** Routes serving the upload worker, for Bun.serve's `routes` next to clientRoutes(). */
export function uploadWorkerRoutes(options: { development: boolean; log?: Logger['error'] }): Record<string, AssetRoute> {
  const log = options.log ?? ((message, fields) => console.error(message, fields));
  const built = (code: string): Built => ({ code, etag: `"${contentHash(code)}"` });
  if (typeof CARTRIDGE_EMBEDDED_UPLOAD_WORKER === 'string') {
    const embedded = built(CARTRIDGE_EMBEDDED_UPLOAD_WORKER);
    return {
      [hashedUploadWorkerPath(embedded.code)]: (request) => serve(embedded, request, 'public, max-age=31536000, immutable'),
      [UPLOAD_WORKER_PATH]: (request) => serve(embedded, request, 'no-cache'),
    };
  }
  let cached: Promise<Built> | undefined;
  return {
    [UPLOAD_WORKER_PATH]: async (request) => {
      // Development rebuilds every time (edits show on reload); otherwise the process builds once.
      const building = options.development ? undefined : cached;
      const pending = building ?? buildUploadWorker({ production: !options.development }).then(built);
      if (!options.development) cached = pending;
      try {
        return serve(await pending, request, 'no-cache');
      } catch (error) {
        if (cached === pending) cached = undefined;
        return failed(error, log);
      }
    },
  };
}
