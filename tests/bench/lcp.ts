import type { Browser } from 'playwright-core';

/**
 * Largest contentful paint in Chromium, shared by bench:client and bench:store: a PerformanceObserver
 * installed before any page script records the latest 'largest-contentful-paint' candidate (its time,
 * element and, for an image, its URL and the bytes that came over the wire for it), each load cold
 * (a fresh browser context: empty cache), targets alternated load by load.
 */

export type LcpRun = {
  lcp: number;
  /** tag.class of the LCP element, '' when unknown. */
  element: string;
  /** The image's URL when the LCP element is an image (its currentSrc), else ''. */
  url: string;
  /** Bytes received for that image (resource timing transferSize: headers and body; 0 for other origins without Timing-Allow-Origin). */
  transferSize: number;
  /** Its body as sent (encodedBodySize). */
  encodedBodySize: number;
};

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export const ms = (value: number): string => `${Math.round(value)} ms`;
export const kb = (bytes: number): string => `${(bytes / 1000).toFixed(1)} KB`;
export const mark = (value: number, goal: number): string => (value <= goal ? 'within goal' : 'OVER GOAL');

/** Records the latest LCP candidate; installed before any page script. */
export const observeLcp = () => {
  const state = { lcp: 0, element: '', url: '' };
  (window as unknown as { __lcp: typeof state }).__lcp = state;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & { element?: Element | null; url?: string })[]) {
      state.lcp = entry.startTime;
      state.url = entry.url ?? '';
      state.element = entry.element ? `${entry.element.tagName.toLowerCase()}${entry.element.className ? `.${String(entry.element.className).split(' ').join('.')}` : ''}` : '';
    }
  }).observe({ type: 'largest-contentful-paint', buffered: true });
};

export type LcpTarget = { url: string; readySelector: string };
export type LcpResult = { median: number; runs: LcpRun[] };
export type LoadOptions = { viewport?: { width: number; height: number } };

/** One cold load (fresh context) of `url`; LCP once `readySelector` is shown, its images loaded and paint has settled. */
export async function loadOnce(browser: Browser, url: string, readySelector: string, options: LoadOptions = {}): Promise<LcpRun> {
  const context = await browser.newContext({ locale: 'en-US', colorScheme: 'light', viewport: options.viewport ?? { width: 1280, height: 800 } });
  try {
    await context.addInitScript(observeLcp);
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    await page.locator(readySelector).first().waitFor({ timeout: 15_000 });
    // Images in view loaded (the candidate for an image is reported once it has painted).
    await page.waitForFunction(
      () => [...document.images].filter((img) => img.loading !== 'lazy' || img.getBoundingClientRect().top < innerHeight).every((img) => img.complete),
      undefined,
      { timeout: 15_000 },
    );
    // Two frames and a pause: the candidate for the final render is reported after its paint.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 300)))));
    const state = await page.evaluate(() => {
      const found = (window as unknown as { __lcp: { lcp: number; element: string; url: string } }).__lcp;
      const resource = found.url ? (performance.getEntriesByName(found.url, 'resource')[0] as PerformanceResourceTiming | undefined) : undefined;
      return { ...found, transferSize: resource?.transferSize ?? 0, encodedBodySize: resource?.encodedBodySize ?? 0 };
    });
    if (!(state.lcp > 0)) throw new Error(`no largest-contentful-paint entry for ${url}`);
    return state;
  } finally {
    await context.close();
  }
}

/** Alternates the targets load by load, so a change in machine load touches all alike. */
export async function measureLcp(browser: Browser, targets: LcpTarget[], runs: number, options: LoadOptions = {}): Promise<LcpResult[]> {
  const results = targets.map(() => [] as LcpRun[]);
  for (let i = 0; i < runs; i++) {
    for (const [index, target] of targets.entries()) results[index]!.push(await loadOnce(browser, target.url, target.readySelector, options));
  }
  return results.map((list) => ({ median: median(list.map((run) => run.lcp)), runs: list }));
}

export const runsText = (result: LcpResult): string => result.runs.map((run) => Math.round(run.lcp)).join(', ');
