import type { DownloadFilter, DownloadUrl, TorrentFile } from '../../../../shared/schemas/package-downloads.ts';
import type { Deps } from '../../../deps.ts';
import type { Actor } from '../../auth/actor.ts';
import { downloadFileName, getDownloadablePackage, getStorePackage, type DownloadablePackage } from './downloadable-package.ts';
import { signedFileUrl, type DownloadKind } from './signed-file-url.ts';
import { buildTorrent } from './torrent.ts';

function urlFor(deps: Deps, item: DownloadablePackage, filter: DownloadFilter | undefined, appUrl: string): DownloadUrl {
  const kind: DownloadKind = filter ?? 'archive';
  return { url: signedFileUrl(appUrl, deps.keys, item.row.id, kind, downloadFileName(item, kind), deps.config.downloads.urlSeconds) };
}

/** GET .../packages/{id}/download: anyone who may see the ready package gets a URL valid DOWNLOAD_URL_MINUTES. */
export async function getDownloadUrl(deps: Deps, actor: Actor, projectId: string, packageId: string, filter: DownloadFilter | undefined, appUrl: string): Promise<DownloadUrl> {
  return urlFor(deps, await getDownloadablePackage(deps, actor, projectId, packageId), filter, appUrl);
}

/** GET /store/.../branches/{b}/packages/{id}/download: only packages of a public branch's current version. */
export async function getStoreDownloadUrl(deps: Deps, projectId: string, branchId: string, packageId: string, filter: DownloadFilter | undefined, appUrl: string): Promise<DownloadUrl> {
  return urlFor(deps, await getStorePackage(deps, projectId, branchId, packageId), filter, appUrl);
}

export async function getTorrent(deps: Deps, actor: Actor, projectId: string, packageId: string, appUrl: string) {
  return buildTorrent(deps, await getDownloadablePackage(deps, actor, projectId, packageId), appUrl);
}

export async function getStoreTorrent(deps: Deps, projectId: string, branchId: string, packageId: string, appUrl: string) {
  return buildTorrent(deps, await getStorePackage(deps, projectId, branchId, packageId), appUrl);
}

export function torrentAsJson(torrent: { fileName: string; torrent: Uint8Array }): TorrentFile {
  return { fileName: torrent.fileName, base64: Buffer.from(torrent.torrent).toString('base64') };
}
