import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { S3Client } from 'bun';
import { formatSize } from '../../../src/shared/format/size.ts';
import { startS3Server, type TestS3Server } from '../../support/s3-server.ts';
import { formatRatio } from '../support.ts';
import { countS3Blobs, waitForKeysGone } from './blobs.ts';
import { generatePackageBuild } from './build.ts';
import { curlDownload, serveFile, zipUrl, type Download } from './download.ts';
import { measureFloor } from './finalize.ts';
import { atLeast, best, blobsLine, finalizeLine, goals, logTail, mb, mbps, seconds, wholePushLine } from './report.ts';
import { peakOf, startRssSampler, type RssPhase } from './rss.ts';
import { createAccount, currentPackage, startBenchServer, type BenchServer } from './server.ts';
import { cliPush, curlUpload, packIntoParts, removeParts, type ArchiveParts } from './upload.ts';

export type S3RoundOptions = {
  sizeMiB: number;
  seed: number;
  tmpRoot: string;
  databaseUrl: string | undefined;
  partSize: number;
  repeat: number;
  fail(message: string): void;
};

const bucket = 'cartridge-bench';

/** The parts straight into the bucket with curl -T, 2 at a time (what the store can take at most), then removed. */
async function putPartsToS3(s3: TestS3Server, archive: ArchiveParts): Promise<{ ms: number; bytes: number }> {
  const args = ['curl', '-sS', '--parallel', '--parallel-max', '2', '-H', 'Expect:', '-H', 'content-type: application/octet-stream', '-w', '%{http_code}\n'];
  const urls = archive.parts.map((_, index) => `${s3.endpoint}/${bucket}/bench-baseline/part-${index}`);
  archive.parts.forEach((part, index) => args.push('-T', part.path, '-o', '/dev/null', urls[index]!));
  const started = performance.now();
  const child = Bun.spawn(args, { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [output, errors, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  const ms = performance.now() - started;
  const bad = output.trim().split('\n').filter((status) => status !== '200');
  if (code !== 0 || bad.length > 0) throw new Error(`curl -T to S3: exit ${code}, not 200: ${bad.slice(0, 5).join(',')} ${errors.slice(0, 300)}`);
  // Removed (signed requests) before anything is counted.
  const client = new S3Client({ bucket, endpoint: s3.endpoint, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, region: 'us-east-1' });
  for (let index = 0; index < archive.parts.length; index++) await client.delete(`bench-baseline/part-${index}`);
  return { ms, bytes: archive.size };
}

/**
 * The push against a server whose blobs are in S3 (moto: tests/support/s3-server.ts, in memory, one
 * request at a time, so far slower than a real store: sizes are smaller, BENCH_PACKAGE_S3_MB). Same
 * baselines as the file round, plus moto's own speed for the same parts (curl -T straight into the
 * bucket): whole push against curl -T to the server, finalize, blobs per GiB from ListObjectsV2, and one
 * cold ZIP download against Bun.file.
 */
export async function s3Round(options: S3RoundOptions): Promise<void> {
  const label = `${options.sizeMiB} MiB on S3 (moto)`;
  const root = mkdtempSync(join(options.tmpRoot, 'cartridge-bench-packages-s3-'));
  let s3: TestS3Server | undefined;
  let server: BenchServer | undefined;
  let sampler: ReturnType<typeof startRssSampler> | undefined;
  let fileServer: ReturnType<typeof serveFile> | undefined;
  const roundStarted = performance.now();
  try {
    const build = generatePackageBuild(join(root, 'build'), options.seed, Math.round(options.sizeMiB * 1024 * 1024));
    s3 = await startS3Server({ bucket });
    const location = { endpoint: s3.endpoint, bucket, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey };
    server = await startBenchServer(options.databaseUrl, { STORAGE_URL: `s3://${bucket}`, ...s3.env });
    sampler = startRssSampler(server.pid);
    const account = await createAccount(server);
    const phases: RssPhase[] = [];

    const archive = await packIntoParts(build.root, join(root, 'parts'), options.partSize);
    const direct = await putPartsToS3(s3, archive);
    const curl = await curlUpload(server, account, archive, options.partSize);
    const floor = await measureFloor(archive, join(root, 'floor.bin'));
    removeParts(archive);
    const leftover = await waitForKeysGone(() => countS3Blobs(location), curl.packageId, 30_000);

    const push = await sampler.measure('push', () => cliPush(server!, account, build.root, join(root, 'home')));
    phases.push(push.phase);
    const cli = push.value;
    if (cli.uploadMs === undefined) throw new Error(`the CLI log showed no upload phase:\n${cli.stderr.slice(-1500)}`);
    console.log(wholePushLine(label, curl.ms, cli.totalMs, archive.size));
    console.log(
      `packages/push ${label}: ${formatRatio(curl.ms / cli.uploadMs)} curl (CLI upload ${mbps(archive.size, cli.uploadMs)}: ${seconds(cli.uploadMs)}; curl -T to the server ` +
        `${mbps(curl.bytes, curl.ms)}: ${seconds(curl.ms)}; curl -T straight into moto ${mbps(direct.bytes, direct.ms)}: ${seconds(direct.ms)}, so the server's part upload runs at ` +
        `${formatRatio(direct.ms / curl.ms)} the store's own speed; phases: pack ${cli.packMs === undefined ? '?' : seconds(cli.packMs)}, ` +
        `finalize + version + publish ${cli.finishMs === undefined ? '?' : seconds(cli.finishMs)}) — ${atLeast(curl.ms / cli.uploadMs, goals.push)}`,
    );
    const pkg = await currentPackage(server, account);
    const sha = floor.bytes / 1e6 / (floor.sha256Ms / 1000);
    const store = direct.bytes / 1e6 / (direct.ms / 1000);
    const finalizeText = finalizeLine(label, server.readLog(), pkg.id, archive.size, {
      mbps: Math.min(sha, store),
      text: `the slower of SHA-256 of the same bytes ${Math.round(sha)} MB/s and moto taking them by curl -T ${Math.round(store)} MB/s`,
    });
    if (finalizeText) console.log(finalizeText);
    else options.fail(`${label}: the server's request log has no PUT …/packages/${pkg.id}/finalize line`);

    const url = await zipUrl(server, account, pkg.id);
    const cold = await sampler.measure('zip cold', () => curlDownload(url));
    phases.push(cold.phase);
    const blobs = await countS3Blobs(location);
    const stillLeft = leftover ? blobs.keys.filter((key) => key.includes(curl.packageId)).length : 0;
    console.log(blobsLine(label, '', blobs, pkg.size, stillLeft));
    const zipCopy = join(root, 'copy.zip');
    const copy = await curlDownload(url, zipCopy);
    if (copy.bytes !== cold.value.bytes) throw new Error(`the ZIP was ${cold.value.bytes} bytes, then ${copy.bytes}`);
    fileServer = serveFile(zipCopy);
    const fileRuns: Download[] = [];
    for (let run = 0; run < options.repeat; run++) fileRuns.push(await curlDownload(fileServer.url));
    const file = best(fileRuns);
    const coldRatio = file.ms / cold.value.ms;
    console.log(
      `packages/zip cold ${label}: ${formatRatio(coldRatio)} Bun.file (first ZIP download ${mbps(cold.value.bytes, cold.value.ms)}, ${seconds(cold.value.ms)}, right after the push, ` +
        `chunks read from S3 unless package_prepare had made the ZIP file; Bun.file ${mbps(file.bytes, file.ms)}; ZIP of ${formatSize(copy.bytes)}) — ${atLeast(coldRatio, goals.zipCold)}`,
    );
    const peakBytes = Math.max(...phases.map(peakOf));
    console.log(
      `packages/rss ${label}: ${formatRatio(peakBytes / goals.rssBytes)} goal (server peak ${mb(peakBytes)}; ${phases.map((phase) => `${phase.name} ${mb(peakOf(phase))} (from ${mb(phase.startBytes)})`).join(', ')}) — ` +
        `${peakBytes <= goals.rssBytes ? 'meets goal ≤ 256 MB' : 'MISSES GOAL ≤ 256 MB'}`,
    );
    console.log(`packages/round ${label}: ${seconds(performance.now() - roundStarted)} in all`);
  } catch (error) {
    options.fail(`${label}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}${server ? `\nserver log:\n${logTail(server.readLog())}` : ''}`);
  } finally {
    fileServer?.stop();
    sampler?.stop();
    await server?.stop().catch((error: unknown) => options.fail(`stopping the server: ${String(error)}`));
    await s3?.stop().catch((error: unknown) => options.fail(`stopping moto: ${String(error)}`));
    rmSync(root, { recursive: true, force: true });
  }
}
