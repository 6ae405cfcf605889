/**
 * Store page and store index paint speed (`bun run bench:store`). Issue 19's benchmark.
 *
 * The real server on loopback (tests/support startTestServer, production mode) with a public project
 * whose store page has a cover (2560×1440 photo-like JPEG) and 8 screenshots (1920×1080), and a store
 * index of 12 projects (8 with covers), all uploaded through the paste flow's REST calls.
 *
 * 1. Largest contentful paint of the store page and of the store index (visitor, 1280×800, 1x) in Debian
 *    Chromium: median of BENCH_LCP_RUNS (5) cold loads, each in a fresh context (empty cache); the
 *    measuring is tests/bench/lcp.ts's, shared with bench:client. Goal ≤ 800 ms.
 * 2. Baseline, same run, loads alternated with the app's: each page as it rendered, without its
 *    scripts, its stylesheet inlined, its images pointing at the same server's same image URLs, served
 *    as static HTML by a bare Bun.serve. Ratio: app LCP / baseline LCP.
 * 3. The cover's bytes sent to a 1280 px screen: the transferred size (resource timing transferSize:
 *    headers and body) of the store page's LCP image, the size srcset picked and the format the server
 *    chose for Chromium's Accept. Goal ≤ 200 KB (200 000 bytes).
 *
 * One line per figure, ratio first. Exits 1 when a measurement could not be made; figures over their
 * goal are marked, not failed.
 */
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../e2e/support/browser.ts';
import { registerUser } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { listedProject, setStoreMedia } from '../support/store-fixtures.ts';
import { kb, mark, measureLcp, ms, runsText, type LcpResult } from './lcp.ts';
import { formatRatio, trackFailures } from './support.ts';

const lcpGoalMs = 800;
const coverGoalBytes = 200_000;
const lcpRuns = Number(process.env.BENCH_LCP_RUNS ?? 5);
const viewport = { width: 1280, height: 800 };

const failures = trackFailures();

type Seeded = { storeUrl: string; indexUrl: string };

async function seed(server: TestServer): Promise<Seeded> {
  const owner = await registerUser(server, 'bench_dev');
  const game = await listedProject(server, owner, 'Star Miner', {
    platforms: ['linux', 'windows', 'web'],
    description: '# Mine the stars\n\nA **cosy** mining game: dig, trade and fly between twelve asteroids.\n\n- Dig\n- Trade\n- Fly',
  });
  await setStoreMedia(server, owner, game.project.id, { cover: { width: 2560, height: 1440 }, screenshots: 8 });
  const names = ['Quiet Harbour', 'Ärger Bay', 'Lantern Road', 'Moss & Iron', 'Orbit Cafe', 'Pixel Garden', 'Rune Keeper', 'Salt Flats', 'Tin Soldiers', 'Umbra', 'Velvet Sky'];
  for (const [index, name] of names.entries()) {
    const listed = await listedProject(server, owner, name, { platforms: index % 2 ? ['web'] : ['linux'] });
    if (index < 7) await setStoreMedia(server, owner, listed.project.id, { cover: { width: 1280, height: 720 }, seed: 20 + index });
  }
  return { storeUrl: `${server.url}/store/${encodeURIComponent(game.project.id)}`, indexUrl: `${server.url}/store` };
}

/**
 * A page as rendered, without scripts, its stylesheet inlined and its images' addresses made absolute on
 * the app's server (the same image URLs, the same server): the no-JS baseline.
 */
async function captureStatic(browser: Browser, url: string, readySelector: string, appOrigin: string): Promise<string> {
  const context = await browser.newContext({ locale: 'en-US', colorScheme: 'light', viewport });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    await page.locator(readySelector).first().waitFor({ timeout: 15_000 });
    return await page.evaluate(async (origin) => {
      let css = '';
      for (const link of [...document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')]) css += await (await fetch(link.href)).text();
      const clone = document.documentElement.cloneNode(true) as HTMLElement;
      for (const node of [...clone.querySelectorAll('script, link[rel="stylesheet"], link[rel="modulepreload"], link[rel="icon"]')]) node.remove();
      const absolute = (value: string) => value.replace(/(^|,\s*)\/content-images\//g, `$1${origin}/content-images/`);
      for (const img of clone.querySelectorAll('img')) {
        img.setAttribute('src', absolute(img.getAttribute('src') ?? ''));
        const srcset = img.getAttribute('srcset');
        if (srcset) img.setAttribute('srcset', absolute(srcset));
      }
      const style = document.createElement('style');
      style.textContent = css;
      clone.querySelector('head')?.append(style);
      return `<!doctype html>\n${clone.outerHTML}`;
    }, appOrigin);
  } finally {
    await context.close();
  }
}

/** The content type the server answers for an image URL with Chromium's image Accept header. */
async function formatOf(url: string): Promise<string> {
  const response = await fetch(url, { headers: { accept: 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8' } });
  await response.arrayBuffer();
  return response.headers.get('content-type') ?? '?';
}

function lcpLine(label: string, result: LcpResult, what: string): string {
  return (
    `${formatRatio(result.median / lcpGoalMs)} LCP of ${label}, median of ${lcpRuns} cold loads: ${ms(result.median)} of goal ${ms(lcpGoalMs)}, ` +
    `${mark(result.median, lcpGoalMs)} (runs ${runsText(result)} ms; element ${result.runs.at(-1)?.element || '?'}${what})`
  );
}

let browser: Browser | undefined;
let server: TestServer | undefined;
const statics: ReturnType<typeof Bun.serve>[] = [];
try {
  browser = await launchBrowser();
  server = await startTestServer({ LOG_LEVEL: 'silent' });
  const started = performance.now();
  const seeded = await seed(server);
  console.log(`seeded 12 projects, 16 images in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const pages = [
    { label: 'the store page (cover + 8 screenshots)', url: seeded.storeUrl, ready: 'main#content.page_store_project .store_cover img', staticReady: 'main .store_cover img' },
    { label: 'the store index (12 projects, 8 covers)', url: seeded.indexUrl, ready: 'main#content.page_store_index .store_card', staticReady: 'main .store_card' },
  ];
  // The captures also warm the server (its first request bundles the client, images are cached by
  // the server's own storage only); the browser stays cold: every measured load has a fresh context.
  for (const page of pages) {
    const html = await captureStatic(browser, page.url, page.ready, server.url);
    statics.push(Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } }) }));
  }

  for (const [index, page] of pages.entries()) {
    const [app, baseline] = (await measureLcp(
      browser,
      [
        { url: page.url, readySelector: page.ready },
        { url: `http://127.0.0.1:${statics[index]!.port}/`, readySelector: page.staticReady },
      ],
      lcpRuns,
      { viewport },
    )) as [LcpResult, LcpResult];
    const last = app.runs.at(-1)!;
    const lcpImage = last.url ? `; image ${new URL(last.url).pathname}` : '';
    console.log(lcpLine(page.label, app, lcpImage));
    console.log(
      `${formatRatio(baseline.median / lcpGoalMs)} LCP baseline, ${page.label} as static HTML (same images from the same server, no JS): ${ms(baseline.median)} of goal ${ms(lcpGoalMs)} ` +
        `(runs ${runsText(baseline)} ms; element ${baseline.runs.at(-1)?.element || '?'})`,
    );
    console.log(`${formatRatio(app.median / baseline.median)} LCP of ${page.label} relative to the static baseline (${ms(app.median)} / ${ms(baseline.median)})`);

    if (index === 0) {
      // The cover, as the 1280 px screen got it: every run's transfer (cache empty each time), the largest.
      const covers = app.runs.filter((run) => run.url.includes('/content-images/'));
      if (covers.length !== app.runs.length) {
        failures.fail(`the store page's LCP was not the cover in every run (${app.runs.map((run) => run.element).join(', ')})`);
      } else {
        const bytes = Math.max(...covers.map((run) => run.transferSize));
        const body = Math.max(...covers.map((run) => run.encodedBodySize));
        const width = new URL(last.url).pathname.split('/').at(-1);
        console.log(
          `${formatRatio(bytes / coverGoalBytes)} cover bytes sent to a 1280 px screen (LCP image, transferSize): ${kb(bytes)} of goal ${kb(coverGoalBytes)}, ` +
            `${mark(bytes, coverGoalBytes)} (body ${kb(body)}; srcset picked the ${width} px size of 2560; ${await formatOf(last.url)})`,
        );
      }
    }
  }
} catch (error) {
  failures.fail(`store LCP: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  for (const item of statics) item.stop(true);
  await browser?.close().catch(() => {});
  await server?.stop();
}
process.exit(failures.hasFailed() ? 1 : 0);
