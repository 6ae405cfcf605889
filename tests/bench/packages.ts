/**
 * Packages end to end (`bun run bench:packages`). Issue 6's benchmark.
 *
 * One round per build size, each on its own server: `bun src/server/main.ts` as a child process
 * (production mode, PGlite on disk in a temporary DATA_DIR, or a fresh database on BENCH_DATABASE_URL,
 * file blob storage), its VmRSS sampled every 50 ms (plus the kernel's high-water mark per phase).
 * The build: 200 files of mixed sizes, ≈ 80% incompressible, deterministic (tests/bench/packages/build.ts).
 *
 * 1. push: `bun src/cli/main.ts push DIR P/B --compression none` as a subprocess; its upload phase
 *    (package created → last part acknowledged, from its timestamped log lines) against `curl -T` of
 *    the same archive bytes, 2 parts at a time, to the same server's part upload endpoint (same token
 *    and SHA-1 checks, same storage). Goal ≥ 0.6× curl's throughput. Packing and finalize are shown apart.
 * 2. zip: the package's signed ZIP URL downloaded with curl, against a bare Bun.serve in this process
 *    answering Bun.file() of the same ZIP bytes, same loopback. Cold (the first download, right after
 *    the push: it waits for the package_prepare job's ZIP file if that is still being written) and warm
 *    (best of BENCH_PACKAGE_REPEAT) apart. Goal ≥ 0.7×.
 * 3. rss: the server's peak over the push, the ZIP downloads (one cold, then 10 in parallel) and the
 *    update push. Goal ≤ 256 MB, and flat when the build doubles (second round at twice the size).
 * 4. update: 1% of the files get 64 KiB overwritten, pushed again (a patch): bytes the CLI sent
 *    (its --json sentBytes) against the full build.
 *
 * Settings: BENCH_PACKAGE_MB (1024), BENCH_PACKAGE_DOUBLE (1: also run at twice the size; 0: skip),
 * BENCH_PACKAGE_REPEAT (3), BENCH_PACKAGE_SEED (1), BENCH_PACKAGE_TMPDIR (the system temp folder),
 * BENCH_DATABASE_URL (unset: PGlite). Needs curl. Exits 1 when a measurement failed, not on a missed goal.
 */
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatSize } from '../../src/shared/format/size.ts';
import { applyUpdate, generatePackageBuild, type PackageBuild } from './packages/build.ts';
import { curlDownload, parallelDownloads, serveFile, zipUrl, type Download } from './packages/download.ts';
import { peakOf, startRssSampler, type RssPhase } from './packages/rss.ts';
import { createAccount, currentPackage, startBenchServer } from './packages/server.ts';
import { cliPush, curlUpload, packIntoParts, removeParts } from './packages/upload.ts';
import { formatRatio, positiveNumber, trackFailures } from './support.ts';

const MiB = 1024 * 1024;
const PART_SIZE = 8 * MiB;
const sizeMiB = positiveNumber('BENCH_PACKAGE_MB', 1024);
const repeat = positiveNumber('BENCH_PACKAGE_REPEAT', 3);
const seed = positiveNumber('BENCH_PACKAGE_SEED', 1);
const doubled = (process.env.BENCH_PACKAGE_DOUBLE ?? '1') !== '0';
const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
const tmpRoot = process.env.BENCH_PACKAGE_TMPDIR || tmpdir();
const goals = { push: 0.6, zip: 0.7, rssBytes: 256e6, flat: 1.2 };

const { fail, hasFailed } = trackFailures();

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
const mbps = (bytes: number, ms: number): string => `${Math.round(bytes / 1e6 / (ms / 1000))} MB/s`;
const mb = (bytes: number): string => `${Math.round(bytes / 1e6)} MB`;
const atLeast = (value: number, goal: number): string => (value >= goal ? `meets goal ≥ ${goal}x` : `MISSES GOAL ≥ ${goal}x`);
const best = (runs: Download[]): Download => runs.reduce((a, b) => (b.ms < a.ms ? b : a));

type RoundResult = { sizeMiB: number; peakBytes: number };

async function round(size: number): Promise<RoundResult | undefined> {
  const label = `${size} MiB`;
  const totalBytes = Math.round(size * MiB);
  const free = statfsSync(tmpRoot);
  const needed = 5 * totalBytes;
  if (free.bavail * free.bsize < needed) throw new Error(`${tmpRoot} has ${formatSize(free.bavail * free.bsize)} free; the ${label} round needs about ${formatSize(needed)}`);
  const roundStarted = performance.now();
  const root = mkdtempSync(join(tmpRoot, 'cartridge-bench-packages-'));
  let server: Awaited<ReturnType<typeof startBenchServer>> | undefined;
  let sampler: ReturnType<typeof startRssSampler> | undefined;
  let fileServer: ReturnType<typeof serveFile> | undefined;
  try {
    const generateStarted = performance.now();
    const build: PackageBuild = generatePackageBuild(join(root, 'build'), seed, totalBytes);
    const generateMs = performance.now() - generateStarted;
    server = await startBenchServer(databaseUrl);
    sampler = startRssSampler(server.pid);
    await Bun.sleep(500);
    const idleBytes = sampler.current();
    const account = await createAccount(server);
    const phases: RssPhase[] = [];

    // 1. push: curl baseline first (its package is deleted), then the CLI.
    const archive = await packIntoParts(build.root, join(root, 'parts'), PART_SIZE);
    const curl = await curlUpload(server, account, archive, PART_SIZE);
    removeParts(archive);
    await Bun.sleep(1000); // the deleted package's parts are collected by a job
    const push = await sampler.measure('push', () => cliPush(server!, account, build.root, join(root, 'home')));
    phases.push(push.phase);
    const cli = push.value;
    if (cli.uploadMs === undefined || cli.parts !== archive.parts.length) {
      throw new Error(`the CLI log showed ${cli.parts} acknowledged parts (expected ${archive.parts.length}) or no upload phase:\n${cli.stderr.slice(-1500)}`);
    }
    const pushRatio = curl.ms / cli.uploadMs;
    console.log(
      `packages/push ${label}: ${formatRatio(pushRatio)} curl (CLI upload ${mbps(archive.size, cli.uploadMs)}: ${seconds(cli.uploadMs)} for a ` +
        `${formatSize(archive.size)} archive in ${cli.parts} parts of ${formatSize(PART_SIZE)}, 2 at a time; curl -T ${mbps(curl.bytes, curl.ms)}: ` +
        `${seconds(curl.ms)}, same parts, 2 at a time) — ${atLeast(pushRatio, goals.push)}`,
    );
    console.log(
      `packages/push phases ${label}: pack ${cli.packMs === undefined ? '?' : `${seconds(cli.packMs)} (${mbps(build.totalBytes, cli.packMs)} of files)`}, ` +
        `upload ${seconds(cli.uploadMs)}, finalize + version + publish ${cli.finishMs === undefined ? '?' : seconds(cli.finishMs)}, ` +
        `whole push ${seconds(cli.totalMs)} (process start to exit; ${build.files.length} files, ${formatSize(build.totalBytes)} generated in ${seconds(generateMs)})`,
    );

    // 2. zip: cold, then warm alternated with the Bun.file baseline.
    const pkg = await currentPackage(server, account);
    const url = await zipUrl(server, account, pkg.id);
    const cold = await sampler.measure('zip cold', () => curlDownload(url));
    phases.push(cold.phase);
    const zipCopy = join(root, 'copy.zip');
    const copy = await curlDownload(url, zipCopy);
    if (copy.bytes !== cold.value.bytes) throw new Error(`the ZIP was ${cold.value.bytes} bytes, then ${copy.bytes}`);
    fileServer = serveFile(zipCopy);
    const warmRuns: Download[] = [];
    const fileRuns: Download[] = [];
    for (let run = 0; run < repeat; run++) {
      warmRuns.push(await curlDownload(url));
      fileRuns.push(await curlDownload(fileServer.url));
    }
    for (const item of [...warmRuns, ...fileRuns]) if (item.bytes !== copy.bytes) throw new Error(`a download returned ${item.bytes} bytes, not ${copy.bytes}`);
    const warm = best(warmRuns);
    const file = best(fileRuns);
    const coldRatio = file.ms / cold.value.ms;
    const warmRatio = file.ms / warm.ms;
    console.log(
      `packages/zip cold ${label}: ${formatRatio(coldRatio)} Bun.file (first ZIP download ${mbps(cold.value.bytes, cold.value.ms)}, ${seconds(cold.value.ms)}, ` +
        `right after the push: the package_prepare job made the ZIP file, or the download waited for it; Bun.file ${mbps(file.bytes, file.ms)}; ZIP of ${formatSize(copy.bytes)}) — ${atLeast(coldRatio, goals.zip)}`,
    );
    console.log(
      `packages/zip warm ${label}: ${formatRatio(warmRatio)} Bun.file (ZIP ${mbps(warm.bytes, warm.ms)}, Bun.file of the same bytes ${mbps(file.bytes, file.ms)}; ` +
        `best of ${repeat} each, curl to /dev/null) — ${atLeast(warmRatio, goals.zip)}`,
    );
    fileServer.stop();
    fileServer = undefined;
    rmSync(zipCopy, { force: true });

    const parallel = await sampler.measure('10 parallel zip', () => parallelDownloads(url, 10));
    phases.push(parallel.phase);
    for (const item of parallel.value.each) if (item.bytes !== copy.bytes) throw new Error(`a parallel download returned ${item.bytes} bytes, not ${copy.bytes}`);
    console.log(
      `packages/zip 10 parallel ${label}: ${formatRatio(parallel.value.bytes / parallel.value.ms / (file.bytes / file.ms))} one Bun.file download ` +
        `(10 ZIP downloads at once, ${mbps(parallel.value.bytes, parallel.value.ms)} together: 10 × ${formatSize(copy.bytes)} in ${seconds(parallel.value.ms)})`,
    );

    // 4. update push (a patch).
    const update = applyUpdate(build, seed);
    const updatePush = await sampler.measure('update push', () => cliPush(server!, account, build.root, join(root, 'home'), { json: true }));
    phases.push(updatePush.phase);
    const result = JSON.parse(updatePush.value.stdout) as { sentBytes: number; archiveSize: number; patch: boolean; sentParts: number };
    if (!result.patch) throw new Error('the update push was not a patch');
    console.log(
      `packages/update ${label}: ${formatRatio(result.sentBytes / build.totalBytes)} full build (sent ${formatSize(result.sentBytes)} in ${result.sentParts} part(s) ` +
        `for ${update.files.length} of ${build.files.length} files changed, ${formatSize(update.editedBytes)} overwritten; full build ${formatSize(build.totalBytes)}, ` +
        `full push sent ${formatSize(archive.size)}; whole update push ${seconds(updatePush.value.totalMs)} incl. packing the patch and resolving it)`,
    );

    // 3. rss.
    const peakBytes = Math.max(...phases.map(peakOf));
    const detail = phases.map((phase) => `${phase.name} ${mb(peakOf(phase))} (from ${mb(phase.startBytes)})`).join(', ');
    const samples = phases.reduce((sum, phase) => sum + phase.samples, 0);
    console.log(
      `packages/rss ${label}: ${formatRatio(peakBytes / goals.rssBytes)} goal (server peak ${mb(peakBytes)}; idle ${mb(idleBytes)}, ${detail}; ` +
        `${samples} samples at 50 ms + kernel high-water mark; ${server.database}) — ${peakBytes <= goals.rssBytes ? 'meets goal ≤ 256 MB' : 'MISSES GOAL ≤ 256 MB'}`,
    );
    console.log(`packages/round ${label}: ${seconds(performance.now() - roundStarted)} in all`);
    return { sizeMiB: size, peakBytes };
  } catch (error) {
    fail(`${label}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}${server ? `\nserver log:\n${server.readLog().slice(-2000)}` : ''}`);
    return undefined;
  } finally {
    fileServer?.stop();
    sampler?.stop();
    await server?.stop().catch((error: unknown) => fail(`stopping the server: ${String(error)}`));
    rmSync(root, { recursive: true, force: true });
  }
}

if (!Bun.which('curl')) {
  console.error('bench: curl is missing; install it with: apt-get install -y curl');
  process.exit(2);
}
console.log(
  `bench: packages on a ${sizeMiB} MiB build${doubled ? ` and a ${sizeMiB * 2} MiB one` : ''} (seed ${seed}), server as a child process on ` +
    `${databaseUrl ? `PostgreSQL at ${new URL(databaseUrl).host}` : 'PGlite'}, loopback, temp in ${tmpRoot}`,
);
const first = await round(sizeMiB);
if (doubled) {
  const second = await round(sizeMiB * 2);
  if (first && second) {
    const growth = second.peakBytes / first.peakBytes;
    console.log(
      `packages/rss flat: ${formatRatio(growth)} (server peak ${mb(second.peakBytes)} at ${second.sizeMiB} MiB vs ${mb(first.peakBytes)} at ${first.sizeMiB} MiB) — ` +
        `${growth <= goals.flat ? `flat (≤ ${goals.flat}x)` : `MISSES GOAL: grows (> ${goals.flat}x)`}`,
    );
  }
}
process.exit(hasFailed() ? 1 : 0);
