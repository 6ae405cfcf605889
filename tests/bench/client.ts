/**
 * Web client size and paint speed (`bun run bench:client`). Issue 4's benchmark.
 *
 * 1. Initial JS of the home page: the production client bundle built the way the binary embeds it
 *    (src/tools/build-binary.ts: minify, splitting, NODE_ENV=production, linked source maps), then the
 *    JS that index.html references plus everything those files import statically (lazy route chunks
 *    excluded), each gzipped with Bun.gzipSync level 9. Goal ≤ 150 KB (150 000 bytes).
 *    Also the same sum over what the running server really sends: from source (`npm start`, the
 *    tests) it builds the same split, minified bundle in memory (src/server/http/client-bundle.ts);
 *    the compiled binary embeds it.
 * 2. Largest contentful paint of the home page (visitor) in Debian Chromium on loopback against the real
 *    server (tests/support startTestServer, production mode, hence its run-time bundle):
 *    PerformanceObserver 'largest-contentful-paint', median of BENCH_LCP_RUNS (5) cold loads, each in
 *    a fresh browser context (empty cache). Goal ≤ 800 ms.
 * 3. Baseline, same run, same browser, loads alternated with the app's: a static HTML page with the
 *    same rendered text and the same stylesheet inlined, no JS, served by a bare Bun.serve.
 *
 * One line per figure, ratio first (figure / goal; the last line is app LCP / baseline LCP).
 * Exits 1 when a measurement could not be made; figures over their goal are marked, not failed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../e2e/support/browser.ts';
import { startTestServer } from '../support/server.ts';
import { kb, mark, measureLcp, ms, runsText, type LcpResult } from './lcp.ts';
import { formatRatio } from './support.ts';

const root = resolve(import.meta.dir, '..', '..');
const initialJsGoalBytes = 150_000;
const lcpGoalMs = 800;
const lcpRuns = Number(process.env.BENCH_LCP_RUNS ?? 5);

type InitialJs = { files: { name: string; raw: number; gzip: number }[]; gzipTotal: number; rawTotal: number; lazyChunks: number };

/** Builds the client like the binary does and sums the gzipped JS a first visit to '/' must load. */
async function measureInitialJs(): Promise<InitialJs> {
  const outdir = mkdtempSync(join(tmpdir(), 'cartridge-bench-client-'));
  try {
    const result = await Bun.build({
      entrypoints: [join(root, 'src', 'client', 'index.html')],
      outdir,
      target: 'browser',
      format: 'esm',
      minify: true,
      splitting: true,
      sourcemap: 'linked',
      define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    });
    if (!result.success) throw new Error(`client build failed:\n${result.logs.map(String).join('\n')}`);
    const html = readFileSync(join(outdir, 'index.html'), 'utf8');
    const referenced = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"|<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/g)].map((match) => match[1] ?? match[2]!);
    if (referenced.length === 0) throw new Error('the built index.html references no script');
    const transpiler = new Bun.Transpiler({ loader: 'js' });
    const seen = new Set<string>();
    const queue = referenced.map((src) => resolve(outdir, src.replace(/^\//, './')));
    let lazyChunks = 0;
    while (queue.length > 0) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const code = readFileSync(path, 'utf8');
      for (const entry of transpiler.scanImports(code)) {
        if (!entry.path.startsWith('.') && !entry.path.startsWith('/')) continue;
        const target = resolve(dirname(path), entry.path);
        if (entry.kind === 'dynamic-import') lazyChunks += 1;
        else queue.push(target);
      }
    }
    const files = [...seen].map((path) => {
      const bytes = readFileSync(path);
      return { name: basename(path), raw: bytes.length, gzip: Bun.gzipSync(bytes, { level: 9 }).length };
    });
    return {
      files,
      gzipTotal: files.reduce((sum, file) => sum + file.gzip, 0),
      rawTotal: files.reduce((sum, file) => sum + file.raw, 0),
      lazyChunks,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/**
 * The same sum over what the running server actually sends a first visit to '/': its HTML's scripts
 * and their static imports, fetched over HTTP. (Bun's HTML import in Bun.serve and in the compiled
 * binary may bundle differently from the Bun.build call above, e.g. without code splitting.)
 */
async function measureServedJs(baseUrl: string): Promise<InitialJs> {
  const html = await (await fetch(new URL('/', baseUrl))).text();
  const referenced = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"|<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/g)].map((match) => match[1] ?? match[2]!);
  if (referenced.length === 0) throw new Error('the served home page references no script');
  const transpiler = new Bun.Transpiler({ loader: 'js' });
  const seen = new Map<string, Uint8Array<ArrayBuffer>>();
  const queue = referenced.map((src) => new URL(src, baseUrl).href);
  let lazyChunks = 0;
  while (queue.length > 0) {
    const url = queue.shift()!;
    if (seen.has(url)) continue;
    const response = await fetch(url);
    if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
    const bytes = new Uint8Array(await response.arrayBuffer()) as Uint8Array<ArrayBuffer>;
    seen.set(url, bytes);
    for (const entry of transpiler.scanImports(new TextDecoder().decode(bytes))) {
      if (!entry.path.startsWith('.') && !entry.path.startsWith('/')) continue;
      if (entry.kind === 'dynamic-import') lazyChunks += 1;
      else queue.push(new URL(entry.path, url).href);
    }
  }
  const files = [...seen].map(([url, bytes]) => ({ name: new URL(url).pathname.slice(1), raw: bytes.length, gzip: Bun.gzipSync(bytes, { level: 9 }).length }));
  return {
    files,
    gzipTotal: files.reduce((sum, file) => sum + file.gzip, 0),
    rawTotal: files.reduce((sum, file) => sum + file.raw, 0),
    lazyChunks,
  };
}

function describeInitialJs(label: string, measured: InitialJs): string {
  const list = measured.files.map((file) => `${file.name} ${kb(file.gzip)}`).join(', ');
  return (
    `${formatRatio(measured.gzipTotal / initialJsGoalBytes)} ${label}: ${kb(measured.gzipTotal)} of goal ${kb(initialJsGoalBytes)}, ` +
    `${mark(measured.gzipTotal, initialJsGoalBytes)} (${measured.files.length} file(s), ${kb(measured.rawTotal)} minified: ${list}; ${measured.lazyChunks} lazy import(s) not counted)`
  );
}

/** The home page as rendered, without scripts, with its stylesheet inlined: the no-JS baseline. */
async function captureStaticHome(browser: Browser, url: string): Promise<string> {
  const context = await browser.newContext({ locale: 'en-US', colorScheme: 'light', viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    await page.locator('main#content.page_home h1').waitFor({ timeout: 15_000 });
    return await page.evaluate(async () => {
      let css = '';
      for (const link of [...document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')]) css += await (await fetch(link.href)).text();
      const clone = document.documentElement.cloneNode(true) as HTMLElement;
      for (const node of [...clone.querySelectorAll('script, link[rel="stylesheet"], link[rel="modulepreload"]')]) node.remove();
      const style = document.createElement('style');
      style.textContent = css;
      clone.querySelector('head')?.append(style);
      return `<!doctype html>\n${clone.outerHTML}`;
    });
  } finally {
    await context.close();
  }
}

let failed = false;
const initial = await measureInitialJs().catch((error: unknown) => {
  failed = true;
  console.error(`bench:client: initial JS: ${error instanceof Error ? error.message : String(error)}`);
  return undefined;
});
if (initial) console.log(describeInitialJs('initial JS of the home page, Bun.build production bundle (split), gzip -9', initial));

let browser: Browser | undefined;
let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
let staticServer: ReturnType<typeof Bun.serve> | undefined;
try {
  browser = await launchBrowser();
  server = await startTestServer({ LOG_LEVEL: 'silent' });
  console.log(describeInitialJs('initial JS of the home page as the real server sends it, gzip -9', await measureServedJs(server.url)));
  // The capture also warms the server (its first request bundles the client); the browser stays
  // cold: every measured load has a fresh context.
  const staticHtml = await captureStaticHome(browser, server.url);
  staticServer = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () => new Response(staticHtml, { headers: { 'content-type': 'text/html; charset=utf-8' } }),
  });

  const [app, baseline] = (await measureLcp(
    browser,
    [
      { url: `${server.url}/`, readySelector: 'main#content.page_home h1' },
      { url: `http://127.0.0.1:${staticServer.port}/`, readySelector: 'main h1' },
    ],
    lcpRuns,
  )) as [LcpResult, LcpResult];
  const runs = runsText;
  console.log(
    `${formatRatio(app.median / lcpGoalMs)} LCP of the home page (visitor), median of ${lcpRuns} cold loads: ${ms(app.median)} of goal ${ms(lcpGoalMs)}, ` +
      `${mark(app.median, lcpGoalMs)} (runs ${runs(app)} ms; element ${app.runs.at(-1)?.element || '?'})`,
  );
  console.log(
    `${formatRatio(baseline.median / lcpGoalMs)} LCP baseline, static HTML with the same text and CSS, no JS (Bun.serve): ${ms(baseline.median)} of goal ${ms(lcpGoalMs)} ` +
      `(runs ${runs(baseline)} ms; element ${baseline.runs.at(-1)?.element || '?'})`,
  );
  console.log(`${formatRatio(app.median / baseline.median)} LCP of the home page relative to the static baseline (${ms(app.median)} / ${ms(baseline.median)})`);
} catch (error) {
  failed = true;
  console.error(`bench:client: LCP: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  staticServer?.stop(true);
  await browser?.close().catch(() => {});
  await server?.stop();
}
process.exit(failed ? 1 : 0);
