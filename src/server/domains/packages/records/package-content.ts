import { decodeIndex, packArchive, toHex, type ArchiveIndex } from '../../../../shared/archive/index.ts';
import type { Deps } from '../../../deps.ts';
import { AppError } from '../../../errors.ts';
import type { Actor } from '../../auth/actor.ts';
import { loadProjectAccess } from '../../projects/access.ts';
import { indexKey } from '../blob-keys.ts';
import { openPackageChunkReader } from '../chunks/chunk-reader.ts';
import { getVisiblePackage, type PackageRow } from './package-rows.ts';

export type { PackageRow } from './package-rows.ts';

/**
 * The read API other modules (downloads, torrent, play, space) build on. Visibility: members see every
 * package; others only packages of versions published to a public branch. A visible package that is
 * not ready yet is not_finalized.
 */
export async function getReadyPackage(deps: Deps, actor: Actor, projectId: string, packageId: string): Promise<PackageRow> {
  const access = await loadProjectAccess(deps, actor, projectId);
  const row = await getVisiblePackage(deps.db, access, packageId);
  if (row.status !== 'ready') throw new AppError('not_finalized', 'The package is not ready yet');
  return row;
}

/** The package's stored index (the exact bytes whose SHA-256 is its indexHash), decoded. */
export async function readPackageIndex(deps: Pick<Deps, 'storage'>, packageId: string): Promise<ArchiveIndex> {
  return decodeIndex(await readPackageIndexBytes(deps, packageId));
}

export async function readPackageIndexBytes(deps: Pick<Deps, 'storage'>, packageId: string): Promise<Uint8Array> {
  return deps.storage.read(indexKey(packageId));
}

/**
 * The package's full archive, regenerated from its index and the chunk store as a pull-driven stream
 * (a chunk or so in memory at a time). Its bytes are the same for every call.
 */
export async function openArchiveStream(deps: Pick<Deps, 'db' | 'storage'>, packageId: string): Promise<ReadableStream<Uint8Array>> {
  const index = await readPackageIndex(deps, packageId);
  const reader = openPackageChunkReader(deps, packageId, index.compression);
  const packed = packArchive(index, { loadChunk: (chunk) => reader.stored({ hash: toHex(chunk.hash), size: chunk.size, compressedSize: chunk.compressedSize }) });
  packed.done.catch(() => undefined).finally(() => reader.release());
  return packed.stream;
}
