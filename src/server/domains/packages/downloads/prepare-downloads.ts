import type { Deps } from '../../../deps.ts';
import { findPackageRow } from '../records/package-rows.ts';
import { cachedZipFile } from './download-files.ts';
import { loadBaseTorrent } from './torrent.ts';

/**
 * The derived data of a package's downloads, made ahead: the ZIP's CRC-32s (its headers need them
 * before the first byte), the ZIP itself in the local download cache (sent with sendfile and its
 * length) and the torrent's piece hashes (one pass over that file). Without them the first ZIP or
 * torrent request pays full passes over the package; with them it starts at once. The package_prepare
 * job (package-prepare.job.ts) does it, queued in the transaction that makes a package ready (finalize,
 * resolve); downloads still compute what is missing on demand (a request before the job ran, a blob
 * lost or damaged). Nothing to do for a package gone or not ready (deleted meanwhile).
 */
export async function preparePackageDownloads(deps: Deps, packageId: string, signal?: AbortSignal): Promise<{ prepared: boolean }> {
  const row = await findPackageRow(deps.db, packageId);
  if (!row || row.status !== 'ready') return { prepared: false };
  // The ZIP's layout loads (and first computes and stores) the CRC-32s; the torrent hashes the ZIP.
  // A job whose lease was lost (signal) stops before each step: another attempt does the work.
  signal?.throwIfAborted();
  await cachedZipFile(deps, row, true);
  signal?.throwIfAborted();
  await loadBaseTorrent(deps, row);
  return { prepared: true };
}
