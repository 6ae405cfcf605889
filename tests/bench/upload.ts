/**
 * Browser upload (`bun run bench:upload`). Issue 7's benchmark.
 *
 * One server as a child process (tests/bench/packages/server.ts: production mode, PGlite or
 * BENCH_DATABASE_URL, file blob storage), one generated build (issue 6's generator: 200 files,
 * ≈ 80% incompressible), uploaded twice over loopback to two branches of one project:
 *
 * 1. the CLI: `cartridge push DIR P/main --compression none` as a subprocess (issue 6's cliPush);
 * 2. Chromium (playwright-core, Debian's /usr/bin/chromium), signed in as the same user: branch page →
 *    Publish new version → New package → the build folder given to the 'Add folder' input → the single
 *    root folder replaced by its contents → Create → done → Publish. The page records the Create
 *    click, each data-status of the upload item and every long task (PerformanceObserver 'longtask',
 *    registered before the app's scripts run).
 *
 * Figures, each with its ratio first:
 * - whole: build bytes over the time from start to published. CLI: process start → exit (index, pack
 *   to disk, upload, finalize, version, publish). Browser: Create click → 'done' (index, pack, hash,
 *   upload, finalize in the upload worker) plus the Publish click → dialog closed (version, publish).
 *   Goal ≥ 0.5× the CLI.
 * - parts: build bytes over the upload phase. CLI: package created ('uploading' line) → last part
 *   acknowledged, reading the archive it packed beforehand. Browser: 'splitting' (package created) →
 *   'finalizing' (last part acknowledged), packing streamed into the parts as they go. Goal ≥ 0.5×.
 * - longest task: the page's longest main-thread task from the Create click to 'done'. Goal ≤ 100 ms.
 * Shown without a goal: the browser's phases, and the dialog's own index of the files (on the page's
 * thread, before Create) with its long tasks.
 *
 * Settings: BENCH_UPLOAD_MB (512), BENCH_UPLOAD_SEED (1), BENCH_UPLOAD_TMPDIR (the system temp
 * folder), BENCH_UPLOAD_TIMEOUT_S (900: the longest wait for one browser step), BENCH_DATABASE_URL
 * (unset: PGlite), CHROMIUM_PATH. Exits 1 when a measurement failed, not on a missed goal.
 */
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { formatSize } from '../../src/shared/format/size.ts';
import { chromiumAvailable, chromiumPath, launchBrowser } from '../e2e/support/browser.ts';
import { generatePackageBuild } from './packages/build.ts';
import { api, createAccount, currentPackage, startBenchServer } from './packages/server.ts';
import { cliPush } from './packages/upload.ts';
import { formatRatio, positiveNumber, trackFailures } from './support.ts';
import { uploadInBrowser, type BrowserUpload } from './upload/browser-upload.ts';

const MiB = 1024 * 1024;
const sizeMiB = positiveNumber('BENCH_UPLOAD_MB', 512);
const seed = positiveNumber('BENCH_UPLOAD_SEED', 1);
const timeoutMs = positiveNumber('BENCH_UPLOAD_TIMEOUT_S', 900) * 1000;
const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
const tmpRoot = process.env.BENCH_UPLOAD_TMPDIR || tmpdir();
const goals = { rate: 0.5, longTaskMs: 100 };

const { fail, hasFailed } = trackFailures();

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
const mbps = (bytes: number, ms: number): string => `${Math.round(bytes / 1e6 / (ms / 1000))} MB/s`;
const ms = (value: number): string => `${Math.round(value)} ms`;
const atLeast = (value: number, goal: number): string => (value >= goal ? `meets goal ≥ ${goal}x` : `MISSES GOAL ≥ ${goal}x`);
const optional = (value: number | undefined, show: (value: number) => string): string => (value === undefined ? '?' : show(value));

function printFigures(label: string, totalBytes: number, cli: Awaited<ReturnType<typeof cliPush>>, browser: BrowserUpload): void {
  const browserWholeMs = browser.uploadMs + browser.publishMs;
  const wholeRatio = cli.totalMs / browserWholeMs;
  console.log(
    `upload/whole ${label}: ${formatRatio(wholeRatio)} CLI (browser ${mbps(totalBytes, browserWholeMs)}: Create click → done ${seconds(browser.uploadMs)} + ` +
      `Publish ${seconds(browser.publishMs)}; CLI push ${mbps(totalBytes, cli.totalMs)}: process start → exit ${seconds(cli.totalMs)}; both index, pack, ` +
      `upload, finalize, make the version and publish it) — ${atLeast(wholeRatio, goals.rate)}`,
  );
  if (browser.partsMs === undefined || cli.uploadMs === undefined) {
    fail(`${label}: the upload phase could not be isolated (browser statuses: ${browser.statuses.map((item) => item.status).join(' → ')})`);
  } else {
    const partsRatio = cli.uploadMs / browser.partsMs;
    console.log(
      `upload/parts ${label}: ${formatRatio(partsRatio)} CLI (browser ${mbps(totalBytes, browser.partsMs)}: package created → last part acknowledged ` +
        `${seconds(browser.partsMs)}, packing streamed into the parts; CLI ${mbps(totalBytes, cli.uploadMs)}: the same span ${seconds(cli.uploadMs)}, ` +
        `from the archive packed to disk beforehand; ${cli.parts} parts, 2 uploads at a time on both sides) — ${atLeast(partsRatio, goals.rate)}`,
    );
  }
  if (!browser.longTaskSupported) {
    fail(`${label}: this Chromium reports no 'longtask' entries, the longest task is unknown`);
  } else {
    const tasks = browser.uploadTasks;
    console.log(
      `upload/longest task ${label}: ${formatRatio(tasks.longestMs / goals.longTaskMs)} goal (longest main-thread task ${ms(tasks.longestMs)} from the ` +
        `Create click to done${tasks.longestAt === undefined ? '' : `, it started ${seconds(tasks.longestAt)} after the click`}; ${tasks.count} long task(s) ≥ 50 ms, ` +
        `${ms(tasks.totalMs)} in all, over ${seconds(browser.uploadMs)}) — ` +
        `${tasks.longestMs <= goals.longTaskMs ? `meets goal ≤ ${goals.longTaskMs} ms` : `MISSES GOAL ≤ ${goals.longTaskMs} ms`}`,
    );
  }
  console.log(
    `upload/browser phases ${label}: Create → package created ${optional(browser.beforePartsMs, seconds)} (draft to the worker, its index pass over ` +
      `the files), parts ${optional(browser.partsMs, seconds)}, finalize ${optional(browser.finalizeMs, seconds)}, publish ${seconds(browser.publishMs)}; ` +
      `upload engine: ${browser.worker ?? '?'}; CLI: pack ${optional(cli.packMs, seconds)}, upload ${optional(cli.uploadMs, seconds)}, ` +
      `finalize + version + publish ${optional(cli.finishMs, seconds)}`,
  );
  const dialog = browser.dialogTasks;
  console.log(
    `upload/dialog index ${label}: ${formatRatio(dialog.longestMs / goals.longTaskMs)} of ${goals.longTaskMs} ms (no goal: before Create; the dialog ` +
      `indexes the files on the page's thread in ${seconds(browser.dialogIndexMs)}, ${mbps(totalBytes, browser.dialogIndexMs)}; longest task ` +
      `${ms(dialog.longestMs)}, ${dialog.count} long task(s), ${ms(dialog.totalMs)} in all)`,
  );
}

async function run(browser: Browser): Promise<void> {
  const label = `${sizeMiB} MiB`;
  const totalBytes = Math.round(sizeMiB * MiB);
  const free = statfsSync(tmpRoot);
  // The build, the CLI's packed archive, and the server's two stored copies.
  const needed = 4 * totalBytes;
  if (free.bavail * free.bsize < needed) throw new Error(`${tmpRoot} has ${formatSize(free.bavail * free.bsize)} free; a ${label} run needs about ${formatSize(needed)}`);
  const started = performance.now();
  const root = mkdtempSync(join(tmpRoot, 'cartridge-bench-upload-'));
  let server: Awaited<ReturnType<typeof startBenchServer>> | undefined;
  try {
    const build = generatePackageBuild(join(root, 'build'), seed, totalBytes);
    server = await startBenchServer(databaseUrl);
    const account = await createAccount(server);
    const browserBranch = await api<{ id: string }>(server, 'POST', `/projects/${account.projectId}/branches`, account.token, { title: 'browser' });

    const cli = await cliPush(server, account, build.root, join(root, 'home'));
    // The CLI's cache held its packed archive; the browser run does not need the disk space.
    rmSync(join(root, 'home'), { recursive: true, force: true });
    const upload = await uploadInBrowser(browser, { server, projectId: account.projectId, branchId: browserBranch.id, cookie: account.cookie }, build.root, timeoutMs);

    const cliPackage = await currentPackage(server, account);
    const browserPackage = await currentPackage(server, { ...account, branch: 'browser', branchId: browserBranch.id });
    for (const [who, pkg] of [['CLI', cliPackage], ['browser', browserPackage]] as const) {
      if (pkg.size !== build.totalBytes) throw new Error(`the ${who}'s package holds ${pkg.size} bytes of files, the build ${build.totalBytes}`);
    }
    console.log(
      `upload/build ${label}: ${build.files.length} files, ${formatSize(build.totalBytes)}; both packages ready with every byte (CLI: content-defined ` +
        `chunks, browser: fixed 256 KiB chunks; no compression on either side)`,
    );
    printFigures(label, build.totalBytes, cli, upload);
    console.log(`upload/run ${label}: ${seconds(performance.now() - started)} in all`);
  } catch (error) {
    fail(`${label}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}${server ? `\nserver log:\n${server.readLog().slice(-2000)}` : ''}`);
  } finally {
    await server?.stop().catch((error: unknown) => fail(`stopping the server: ${String(error)}`));
    rmSync(root, { recursive: true, force: true });
  }
}

if (!chromiumAvailable()) {
  console.error(`bench: Chromium not found at ${chromiumPath}; install it with: apt-get install -y chromium`);
  process.exit(2);
}
console.log(
  `bench: browser upload of a ${sizeMiB} MiB build (seed ${seed}) in Chromium against the CLI push, server as a child process on ` +
    `${databaseUrl ? `PostgreSQL at ${new URL(databaseUrl).host}` : 'PGlite'}, loopback, temp in ${tmpRoot}`,
);
const browser = await launchBrowser();
try {
  await run(browser);
} finally {
  await browser.close().catch((error: unknown) => fail(`closing Chromium: ${String(error)}`));
}
process.exit(hasFailed() ? 1 : 0);
