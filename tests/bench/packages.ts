/**
 * Packages end to end (`bun run bench:packages`). Issue 6's benchmark, with issue 20's goals.
 *
 * One round per build size, each on its own server: `bun src/server/main.ts` as a child process
 * (production mode, PGlite on disk in a temporary DATA_DIR, or a fresh database on BENCH_DATABASE_URL,
 * file blob storage, LOG_LEVEL=info for its request log), its VmRSS sampled every 50 ms (plus the kernel's
 * high-water mark per phase). The build: 200 files of mixed sizes, ≈ 80% incompressible, deterministic
 * (tests/bench/packages/build.ts).
 *
 * 1. push: `bun src/cli/main.ts push DIR P/B --compression none` as a subprocess; its upload phase
 *    (package created → last part acknowledged, from its timestamped log lines) against `curl -T` of
 *    the same archive bytes, 2 parts at a time, to the same server's part upload endpoint (same token
 *    and SHA-1 checks, same storage). Goal ≥ 0.6× curl's throughput. Packing and finalize are shown apart.
 *    `push whole`: the whole CLI push (process start to exit: pack, upload, finalize, version, publish)
 *    against the same curl -T. Goal ≥ 0.5× (issue 20).
 * 2. finalize: the CLI logs nothing between finalize and the version and publish calls, so finalize is
 *    timed by the server: its request log's handling time of PUT …/finalize, in MB/s of archive. Against
 *    the floor of the same bytes in the same run: the slower of SHA-256 of them (finalize verifies every
 *    chunk) and writing them to the same disk with one fsync (finalize stores them). Goal ≥ 400 MB/s.
 * 3. blobs: every key of the blob store after the push and the cold ZIP download, whatever the layout
 *    (per-chunk blobs, pack files, indexes; the file store's files but its '.' temporaries), per GiB of
 *    the package, listed by first path segment; the deleted curl package's parts are waited for first.
 *    Goal ≤ 64 per GiB (issue 20).
 * 4. zip: the package's signed ZIP URL downloaded with curl, against a bare Bun.serve in this process
 *    answering Bun.file() of the same ZIP bytes, same loopback. Cold (the first download, right after
 *    the push: it waits for the package_prepare job's ZIP file if that is still being written; goal
 *    ≥ 0.5×, issue 20) and warm (best of BENCH_PACKAGE_REPEAT; goal ≥ 0.7×) apart.
 * 5. rss: the server's peak over the push, the ZIP downloads (one cold, then 10 in parallel) and the
 *    update push. Goal ≤ 256 MB, and flat when the build doubles (second round at twice the size).
 * 6. update: 1% of the files get 64 KiB overwritten, pushed again (a patch): bytes the CLI sent
 *    (its --json sentBytes) against the full build.
 * 7. S3 round (packages/s3-round.ts): a BENCH_PACKAGE_S3_MB build pushed to a server with
 *    STORAGE_URL=s3://… on moto (tests/support/s3-server.ts: in memory, one request at a time, hence the
 *    smaller size); whole push and upload against curl -T to that server and straight into moto,
 *    finalize against the slower of SHA-256 and moto's own speed, blobs from ListObjectsV2, one cold ZIP
 *    download against Bun.file, the server's RSS.
 *
 * Settings: BENCH_PACKAGE_MB (1024), BENCH_PACKAGE_DOUBLE (1: also run at twice the size; 0: skip),
 * BENCH_PACKAGE_S3_MB (256), BENCH_PACKAGE_S3 (1; 0: skip the S3 round), BENCH_PACKAGE_REPEAT (3),
 * BENCH_PACKAGE_SEED (1), BENCH_PACKAGE_TMPDIR (the system temp folder), BENCH_DATABASE_URL (unset:
 * PGlite). Needs curl, and Python's moto for the S3 round. Exits 1 when a measurement failed, not on a
 * missed goal.
 */
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatSize } from '../../src/shared/format/size.ts';
import { countFileBlobs, waitForKeysGone } from './packages/blobs.ts';
import { applyUpdate, generatePackageBuild, type PackageBuild } from './packages/build.ts';
import { curlDownload, parallelDownloads, serveFile, zipUrl, type Download } from './packages/download.ts';
import { measureFloor } from './packages/finalize.ts';
import { atLeast, best, blobsLine, diskFloor, finalizeLine, goals, logTail, mb, mbps, seconds, wholePushLine } from './packages/report.ts';
import { peakOf, startRssSampler, type RssPhase } from './packages/rss.ts';
import { s3Round } from './packages/s3-round.ts';
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
const s3SizeMiB = positiveNumber('BENCH_PACKAGE_S3_MB', 256);
const s3Enabled = (process.env.BENCH_PACKAGE_S3 ?? '1') !== '0';
const { fail, hasFailed } = trackFailures();

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
    const floor = await measureFloor(archive, join(root, 'floor.bin'));
    removeParts(archive);
    // The deleted package's parts are collected by a job: the blob count after the push must not see them.
    const blobRoot = join(server.dataDir, 'blobs');
    const leftover = await waitForKeysGone(() => countFileBlobs(blobRoot), curl.packageId, 30_000);
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
    console.log(wholePushLine(label, curl.ms, cli.totalMs, archive.size));

    // 2. zip: cold, then warm alternated with the Bun.file baseline.
    const pkg = await currentPackage(server, account);
    const finalizeText = finalizeLine(label, server.readLog(), pkg.id, archive.size, diskFloor(floor));
    if (finalizeText) console.log(finalizeText);
    else fail(`${label}: the server's request log has no PUT …/packages/${pkg.id}/finalize line`);
    const url = await zipUrl(server, account, pkg.id);
    const cold = await sampler.measure('zip cold', () => curlDownload(url));
    phases.push(cold.phase);
    // After the cold download: the package_prepare job has run, so whatever it stores is counted too.
    const blobs = countFileBlobs(blobRoot);
    const stillLeft = leftover ? blobs.keys.filter((key) => key.includes(curl.packageId)).length : 0;
    console.log(blobsLine(label, 'file store', blobs, pkg.size, stillLeft));
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
        `right after the push: the package_prepare job made the ZIP file, or the download waited for it; Bun.file ${mbps(file.bytes, file.ms)}; ZIP of ${formatSize(copy.bytes)}) — ${atLeast(coldRatio, goals.zipCold)}`,
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
    fail(`${label}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}${server ? `\nserver log:\n${logTail(server.readLog())}` : ''}`);
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
  `bench: packages on a ${sizeMiB} MiB build${doubled ? ` and a ${sizeMiB * 2} MiB one` : ''}${s3Enabled ? `, then a ${s3SizeMiB} MiB one on S3 (moto)` : ''} (seed ${seed}), ` +
    `server as a child process on ${databaseUrl ? `PostgreSQL at ${new URL(databaseUrl).host}` : 'PGlite'}, loopback, temp in ${tmpRoot}`,
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
if (s3Enabled) await s3Round({ sizeMiB: s3SizeMiB, seed, tmpRoot, databaseUrl, partSize: PART_SIZE, repeat, fail });
process.exit(hasFailed() ? 1 : 0);
