import bencode from 'bencode';
import createTorrent from 'create-torrent';
import { createReadStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import type { CompressionAlgorithm } from '../../../../shared/archive/index.ts';
import type { Deps } from '../../../deps.ts';
import { noteTransientBytes } from '../../../memory/transient-bytes.ts';
import { downloadFileName, type DownloadablePackage } from './downloadable-package.ts';
import { cachedZipFile, zipFileOf } from './download-files.ts';
import { publicZipUrl, signedFileUrl, torrentWebSeedSeconds } from './signed-file-url.ts';
import { rawChunkLoader } from './zip/chunks.ts';
import { readVirtualRange } from './zip/segments.ts';

function torrentKey(packageId: string): string {
  return `packages/${packageId}/torrent`;
}

/**
 * BitTorrent's usual rule (webtorrent's piece-length): about a thousand pieces, a power of two,
 * at least 16 KiB; capped at 16 MiB so a web seed request stays small.
 */
function pieceLengthFor(size: number): number {
  const exponent = Math.floor(Math.log2(size < 1024 ? 1 : size / 1024) + 0.5);
  return Math.min(16 * 1024 * 1024, Math.max(16 * 1024, 2 ** exponent));
}

/** Hashes the ZIP's pieces: one full pass over the cached ZIP file, or over its chunks without one. */
async function hashZip(deps: Pick<Deps, 'db' | 'storage' | 'fileCache'>, row: DownloadablePackage['row']): Promise<Uint8Array> {
  const zip = await zipFileOf(deps, row);
  const cached = await cachedZipFile(deps, row, false);
  // A Node file stream paces reads by what the hasher takes (Bun.file().stream() through Readable.fromWeb
  // read ahead without limit: over a gigabyte held for a 512 MiB ZIP).
  const input = cached
    ? createReadStream(cached, { highWaterMark: 1024 * 1024 }).pipe(new Transform({ transform: (piece: Buffer, _, done) => (noteTransientBytes(2 * piece.byteLength), done(null, piece)) }))
    : Readable.fromWeb(readVirtualRange(zip, 0, zip.size, rawChunkLoader(deps, row.id, (row.compression ?? 0) as CompressionAlgorithm)) as unknown as import('node:stream/web').ReadableStream<Uint8Array>);
  return new Promise((resolve, reject) => {
    createTorrent(
      input,
      { name: 'package.zip', pieceLength: pieceLengthFor(zip.size), announceList: [], urlList: [], creationDate: row.createdAt, private: false },
      (error, torrent) => (error ? reject(error) : resolve(new Uint8Array(torrent))),
    );
  });
}

const running = new Map<string, Promise<Uint8Array>>();

/**
 * The piece hashes need the whole ZIP once, so the torrent made by create-torrent is cached at
 * `packages/{id}/torrent` (derived data: any process may write it; the ZIP's bytes never change, so
 * concurrent writers store the same bytes). What may change, the name (titles can be renamed) and
 * the web seed URL (signed URLs expire), is set on every request.
 */
export async function loadBaseTorrent(deps: Pick<Deps, 'db' | 'storage' | 'fileCache'>, row: DownloadablePackage['row']): Promise<Uint8Array> {
  const key = torrentKey(row.id);
  if (await deps.storage.stat(key)) return deps.storage.read(key);
  let computing = running.get(row.id);
  if (!computing) {
    computing = (async () => {
      const torrent = await hashZip(deps, row);
      await deps.storage.put(key, torrent);
      return torrent;
    })().finally(() => running.delete(row.id));
    running.set(row.id, computing);
  }
  return computing;
}

/**
 * The .torrent of the package's ZIP: one file named like the ZIP download, no tracker, and the ZIP
 * URL as BEP 19 web seed so any client can fetch it from this server alone. Public packages seed
 * from the unsigned public route (valid as long as the package stays public); private ones from a
 * URL signed for a week (see signed-file-url.ts).
 */
export async function buildTorrent(deps: Deps, item: DownloadablePackage, appUrl: string): Promise<{ fileName: string; torrent: Uint8Array }> {
  const zipName = downloadFileName(item, 'zip');
  const webSeed = item.isPublic
    ? publicZipUrl(appUrl, item.row.id, zipName)
    : signedFileUrl(appUrl, deps.keys, item.row.id, 'zip', zipName, torrentWebSeedSeconds);
  const torrent = bencode.decode(await loadBaseTorrent(deps, item.row));
  torrent.info.name = zipName;
  torrent['url-list'] = [webSeed];
  torrent['created by'] = deps.config.appName;
  torrent['creation date'] = Math.floor(item.row.createdAt.getTime() / 1000);
  delete torrent.announce;
  delete torrent['announce-list'];
  return { fileName: downloadFileName(item, 'torrent'), torrent: bencode.encode(torrent) };
}
