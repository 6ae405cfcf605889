import { formatSize } from '../../../src/shared/format/size.ts';
import { formatRatio } from '../support.ts';
import { describeCount, type BlobCount } from './blobs.ts';
import type { Download } from './download.ts';
import { finalizeFromLog, type Floor } from './finalize.ts';

/** Issue 6's goals (push upload phase, warm ZIP, RSS) and issue 20's (whole push, finalize, cold ZIP, blobs per GiB). */
export const goals = { push: 0.6, wholePush: 0.5, finalizeMBps: 400, zipCold: 0.5, zip: 0.7, rssBytes: 256e6, flat: 1.2, blobsPerGiB: 64 };

const GiB = 1024 ** 3;
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
export const mbps = (bytes: number, ms: number): string => `${Math.round(bytes / 1e6 / (ms / 1000))} MB/s`;
export const mb = (bytes: number): string => `${Math.round(bytes / 1e6)} MB`;
export const atLeast = (value: number, goal: number): string => (value >= goal ? `meets goal ≥ ${goal}x` : `MISSES GOAL ≥ ${goal}x`);
export const best = (runs: Download[]): Download => runs.reduce((a, b) => (b.ms < a.ms ? b : a));
/** A server log's lines but the request log's (it is on for the finalize timing), for failure reports. */
export const logTail = (log: string): string =>
  log
    .split('\n')
    .filter((line) => !line.includes('"message":"request"'))
    .join('\n')
    .slice(-2000);

/** The whole push (CLI start to exit) against curl -T of the same bytes; goal ≥ 0.5× (issue 20). */
export function wholePushLine(label: string, curlMs: number, cliMs: number, archiveBytes: number): string {
  const ratio = curlMs / cliMs;
  return (
    `packages/push whole ${label}: ${formatRatio(ratio)} curl -T (the CLI from process start to exit, packing, upload, finalize, version and publish: ${seconds(cliMs)}, ` +
    `${mbps(archiveBytes, cliMs)} of archive; curl -T of the packed parts ${seconds(curlMs)}) — ${atLeast(ratio, goals.wholePush)}`
  );
}

/** What finalize is compared with: a rate in MB/s and how it was made. */
export type FinalizeFloor = { mbps: number; text: string };

/** The file store's floor: the slower of SHA-256 of the bytes and an fsynced write of them to the same disk. */
export function diskFloor(floor: Floor): FinalizeFloor {
  const sha = floor.bytes / 1e6 / (floor.sha256Ms / 1000);
  const write = floor.bytes / 1e6 / (floor.writeMs / 1000);
  return {
    mbps: Math.min(sha, write),
    text: `the slower of SHA-256 of the same bytes ${Math.round(sha)} MB/s and writing them to the same disk with fsync ${Math.round(write)} MB/s`,
  };
}

/** Finalize from the server's request log, in MB/s of archive and against a floor of the same run. */
export function finalizeLine(label: string, log: string, packageId: string, archiveBytes: number, floor: FinalizeFloor): string | undefined {
  const timing = finalizeFromLog(log, packageId);
  if (!timing) return undefined;
  const rate = archiveBytes / 1e6 / (timing.ms / 1000);
  return (
    `packages/finalize ${label}: ${formatRatio(rate / floor.mbps)} the floor (finalize ${Math.round(rate)} MB/s: PUT …/finalize took the server ${seconds(timing.ms)} for ` +
    `${formatSize(archiveBytes)} (its request log${timing.calls > 1 ? `, ${timing.calls} calls: ${timing.statuses.join(', ')}` : ''}); floor ${Math.round(floor.mbps)} MB/s, ${floor.text}) — ` +
    `${rate >= goals.finalizeMBps ? `meets goal ≥ ${goals.finalizeMBps} MB/s` : `MISSES GOAL ≥ ${goals.finalizeMBps} MB/s`}`
  );
}

/** Blobs per GiB of package: every key the store holds after the push, whatever its prefix; goal ≤ 64 (issue 20). */
export function blobsLine(label: string, store: string, count: BlobCount, packageBytes: number, leftover: number): string {
  const perGiB = count.total / (packageBytes / GiB);
  return (
    `packages/blobs ${label}${store ? ` ${store}` : ''}: ${formatRatio(perGiB / goals.blobsPerGiB)} goal (${perGiB.toFixed(1)} blobs per GiB: ${count.total} keys for a ${formatSize(packageBytes)} package: ` +
    `${describeCount(count)}${leftover ? `; ${leftover} of them parts of the deleted curl package not yet collected` : ''}) — ` +
    `${perGiB <= goals.blobsPerGiB ? `meets goal ≤ ${goals.blobsPerGiB} per GiB` : `MISSES GOAL ≤ ${goals.blobsPerGiB} per GiB`}`
  );
}
