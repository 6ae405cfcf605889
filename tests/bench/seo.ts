/**
 * Store pages that share and index well (`bun run bench:seo`). Issue 21's benchmark.
 *
 * The real server on loopback (tests/support startTestServer, production mode) with a public game whose
 * store page has a cover and a description, and a store index of 8 projects.
 *
 * 1. HTML answer time of the store page (its head written from the store cache: title, description,
 *    previews, JSON-LD) against the app shell of a path without a head of its own (/login: the
 *    bare shell, same route and headers), in the same run: BENCH_SEO_ROUNDS (2000) requests of each,
 *    alternated after BENCH_SEO_WARMUP (12000) unmeasured ones (the JIT's steady state), one at a time
 *    on one kept-alive connection, timed to the answer's first byte (the
 *    server's work) and to its last byte (gzip: three times the HTML, compressed), then the throughput
 *    with 16 connections at once (four blocks of each, alternated).
 *    Ratio: shell time / store-page time (goal >= 0.8x: the meta must come from the cache, not from a
 *    query per request).
 * 2. Lighthouse 12.2.3's SEO score (`npx --yes lighthouse@12.2.3`, Debian Chromium at CHROMIUM_PATH,
 *    headless) of the store page, the store index and home, with the audits that failed. Goal 100 on
 *    the store page and the index (82 before issue 21). BENCH_SEO_LIGHTHOUSE=0 skips it.
 *
 * One line per figure, ratio first. Exits 1 when a measurement could not be made; figures under their
 * goal are marked, not failed.
 */
import net from 'node:net';
import { registerUser } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { listedProject, setStoreMedia } from '../support/store-fixtures.ts';
import { chromiumPath } from '../e2e/support/browser.ts';
import { formatRatio, positiveNumber, trackFailures } from './support.ts';

const rounds = positiveNumber('BENCH_SEO_ROUNDS', 2000);
const warmup = positiveNumber('BENCH_SEO_WARMUP', 12_000);
const concurrency = 16;
const timeGoal = 0.8;
const scoreGoal = 100;
const runLighthouse = process.env.BENCH_SEO_LIGHTHOUSE !== '0';

const failures = trackFailures();

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const us = (milliseconds: number) => `${Math.round(milliseconds * 1000)} µs`;
const mark = (ok: boolean) => (ok ? '' : ' (goal missed)');

/**
 * A raw HTTP/1.1 client on one kept-alive connection (node:net): times each request to the first byte
 * of its answer (the server's work; the client's reading is not in it) and to its last byte (gzip, as
 * browsers and bots ask; not decompressed).
 */
function rawClient(base: string) {
  const { hostname, port } = new URL(base);
  const socket = net.connect({ host: hostname, port: Number(port) });
  socket.setNoDelay(true);
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let waiting: ((chunk: Buffer) => void) | undefined;
  socket.on('data', (chunk: Buffer) => waiting?.(chunk));
  return {
    async get(path: string): Promise<{ head: number; whole: number }> {
      await opened;
      let received = Buffer.alloc(0);
      let first = 0;
      const started = performance.now();
      const done = new Promise<number>((resolve, reject) => {
        waiting = (chunk) => {
          if (!first) first = performance.now();
          received = Buffer.concat([received, chunk]);
          const end = received.indexOf('\r\n\r\n');
          if (end < 0) return;
          const headers = received.subarray(0, end).toString('latin1');
          if (!headers.startsWith('HTTP/1.1 200')) reject(new Error(`${path}: ${headers.split('\r\n')[0]}`));
          const length = Number(/\r\ncontent-length: (\d+)/i.exec(headers)?.[1] ?? NaN);
          if (received.length >= end + 4 + length) resolve(performance.now());
        };
      });
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/html\r\nAccept-Encoding: gzip\r\nAccept-Language: en-US,en;q=0.9\r\n\r\n`);
      const last = await done;
      return { head: first - started, whole: last - started };
    },
    close: () => socket.destroy(),
  };
}

/** One request through fetch (decompressed and read whole): the warm-up of both paths. */
async function fetched(url: string): Promise<void> {
  const response = await fetch(url);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
}

type Times = { head: number[]; whole: number[] };

async function sequential(base: string, shellPath: string, storePath: string): Promise<{ shell: Times; store: Times }> {
  const client = rawClient(base);
  const timed = (path: string) => client.get(path);
  // Steady state: both paths compiled by the JIT's upper tiers before anything counts (it takes thousands).
  for (let i = 0; i < warmup; i++) await timed(i % 2 ? shellPath : storePath);
  const shellUrl = shellPath;
  const storeUrl = storePath;
  const shell: Times = { head: [], whole: [] };
  const store: Times = { head: [], whole: [] };
  const add = (times: Times, one: { head: number; whole: number }) => {
    times.head.push(one.head);
    times.whole.push(one.whole);
  };
  for (let i = 0; i < rounds; i++) {
    // Alternated, and which goes first alternates too: neither gets the warmer slot.
    if (i % 2 === 0) {
      add(shell, await timed(shellUrl));
      add(store, await timed(storeUrl));
    } else {
      add(store, await timed(storeUrl));
      add(shell, await timed(shellUrl));
    }
  }
  client.close();
  for (const times of [shell, store]) for (const list of [times.head, times.whole]) list.sort((a, b) => a - b);
  return { shell, store };
}

/** Requests per second with `concurrency` raw connections asking for `path` until `rounds` are answered. */
async function throughput(base: string, path: string): Promise<number> {
  const clients = Array.from({ length: concurrency }, () => rawClient(base));
  let left = rounds;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (left-- > 0) await client.get(path);
    }),
  );
  const rate = rounds / ((performance.now() - started) / 1000);
  for (const client of clients) client.close();
  return rate;
}

type LighthouseReport = { categories: { seo: { score: number | null; auditRefs: { id: string; weight: number }[] } }; audits: Record<string, { score: number | null; scoreDisplayMode: string; title: string }> };

async function lighthouseSeo(url: string): Promise<{ score: number; failed: string[] }> {
  const process_ = Bun.spawn(
    ['npx', '--yes', 'lighthouse@12.2.3', url, '--only-categories=seo', '--output=json', '--output-path=stdout', '--quiet', '--chrome-flags=--headless --no-sandbox --disable-gpu'],
    { env: { ...process.env, CHROME_PATH: chromiumPath }, stdout: 'pipe', stderr: 'pipe' },
  );
  const [out, err, code] = await Promise.all([new Response(process_.stdout).text(), new Response(process_.stderr).text(), process_.exited]);
  if (code !== 0) throw new Error(`lighthouse exited ${code}: ${err.trim().split('\n').slice(-5).join(' | ')}`);
  const report = JSON.parse(out) as LighthouseReport;
  const seo = report.categories.seo;
  if (seo.score === null) throw new Error('lighthouse gave no SEO score');
  const failed = seo.auditRefs
    .filter((ref) => ref.weight > 0)
    .map((ref) => ({ id: ref.id, audit: report.audits[ref.id]! }))
    .filter(({ audit }) => audit.scoreDisplayMode !== 'notApplicable' && audit.scoreDisplayMode !== 'manual' && (audit.score ?? 0) < 1)
    .map(({ id }) => id);
  return { score: Math.round(seo.score * 100), failed };
}

let server: TestServer | undefined;
try {
  server = await startTestServer();
  const started = performance.now();
  const owner = await registerUser(server, 'bench_dev');
  const game = await listedProject(server, owner, 'Star Miner', {
    platforms: ['linux', 'windows', 'web'],
    description: '# Mine the stars\n\nA **cosy** mining game: dig, trade and fly between twelve asteroids, with friends or alone.\n\n- Dig\n- Trade\n- Fly',
  });
  await setStoreMedia(server, owner, game.project.id, { cover: { width: 2560, height: 1440 }, screenshots: 2 });
  for (const [index, name] of ['Quiet Harbour', 'Lantern Road', 'Moss & Iron', 'Orbit Cafe', 'Pixel Garden', 'Rune Keeper', 'Salt Flats'].entries()) {
    const listed = await listedProject(server, owner, name, { platforms: index % 2 ? ['web'] : ['linux'], description: `${name}: a small game.` });
    if (index < 4) await setStoreMedia(server, owner, listed.project.id, { cover: { width: 1280, height: 720 }, seed: 30 + index });
  }
  console.log(`seeded 8 projects in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const storeUrl = `${server.url}/store/${encodeURIComponent(game.project.id)}`;
  const shellUrl = `${server.url}/login`;
  const storeHtml = await (await fetch(storeUrl)).text();
  if (!storeHtml.includes('<title>Star Miner - Cartridge</title>') || !storeHtml.includes('og:image')) failures.fail('the store page HTML has no head of its own');
  for (let i = 0; i < 200; i++) await Promise.all([fetched(shellUrl), fetched(storeUrl)]);

  const shellPath = new URL(shellUrl).pathname;
  const storePath = new URL(storeUrl).pathname;
  const times = await sequential(server.url, shellPath, storePath);
  const sizes = async (url: string) => {
    const plain = (await (await fetch(url, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer()).byteLength;
    const sent = Number((await fetch(url, { headers: { 'accept-encoding': 'gzip' }, decompress: false } as RequestInit)).headers.get('content-length'));
    return `${plain} B (${sent} B gzip)`;
  };
  for (const [label, key] of [
    ['to its first byte (the server at work)', 'head'],
    ['to its last byte (gzip)', 'whole'],
  ] as const) {
    const shellMedian = quantile(times.shell[key], 0.5);
    const storeMedian = quantile(times.store[key], 0.5);
    const ratio = shellMedian / storeMedian;
    console.log(
      `${formatRatio(ratio)} store page HTML answer time vs the bare app shell, ${label}, one at a time, median of ${rounds}: ${us(storeMedian)} vs ${us(shellMedian)} ` +
        `(p99 ${us(quantile(times.store[key], 0.99))} vs ${us(quantile(times.shell[key], 0.99))}), goal >= ${formatRatio(timeGoal)}${mark(ratio >= timeGoal)}`,
    );
  }
  console.log(`page sizes: store page ${await sizes(storeUrl)}, bare shell ${await sizes(shellUrl)}`);
  // Four blocks each, alternated (shell, store, store, shell, …): neither gets the warmer half.
  let shellRate = 0;
  let storeRate = 0;
  for (const first of ['shell', 'store', 'store', 'shell'] as const) {
    if (first === 'shell') {
      shellRate += await throughput(server.url, shellPath);
      storeRate += await throughput(server.url, storePath);
    } else {
      storeRate += await throughput(server.url, storePath);
      shellRate += await throughput(server.url, shellPath);
    }
  }
  shellRate /= 4;
  storeRate /= 4;
  console.log(
    `${formatRatio(storeRate / shellRate)} store page HTML throughput vs the bare app shell, ${concurrency} at once: ${Math.round(storeRate)} vs ${Math.round(shellRate)} requests/s, ` +
      `goal >= ${formatRatio(timeGoal)}${mark(storeRate / shellRate >= timeGoal)}`,
  );

  if (runLighthouse) {
    for (const [label, url, goal] of [
      ['the store page', storeUrl, scoreGoal],
      ['the store index', `${server.url}/store`, scoreGoal],
      ['home', `${server.url}/`, undefined],
    ] as const) {
      try {
        const result = await lighthouseSeo(url);
        const failed = result.failed.length ? `, failed: ${result.failed.join(', ')}` : ', every audit passed';
        const goalText = goal ? ` of goal ${goal}${mark(result.score >= goal)}` : ' (no goal)';
        console.log(`${formatRatio(result.score / scoreGoal)} Lighthouse 12.2.3 SEO score of ${label}: ${result.score}${goalText}${failed}`);
      } catch (error) {
        failures.fail(`Lighthouse on ${label} could not run: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
} catch (error) {
  failures.fail(`seo: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  await server?.stop();
}
process.exit(failures.hasFailed() ? 1 : 0);
