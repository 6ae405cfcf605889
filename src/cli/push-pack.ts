import { rm } from 'node:fs/promises';
import { packArchive, type ArchiveIndex, type ArchiveTree, type CompressionAlgorithm } from '../shared/archive/index.ts';
import type { ApiClient } from '../shared/api/client.ts';
import { routes } from '../shared/api/routes.ts';
import type { Package } from '../shared/schemas/packages.ts';
import { folderRefusal } from './folder-tree.ts';
import { startProgress } from './progress.ts';

/** The current version's packages of a branch (empty when nothing was published yet). */
export async function currentPackages(api: ApiClient, projectId: string, versionId: string | undefined): Promise<Package[]> {
  if (!versionId) return [];
  return api.call(routes.packages.ofVersion, { params: { project: projectId, version: versionId } });
}

/** GET .../download?filter=... → the signed URL to fetch (no bearer needed). */
export async function downloadUrl(api: ApiClient, projectId: string, packageId: string, filter?: 'index' | 'zip'): Promise<string> {
  const { url } = await api.call(routes.packageDownloads.url, { params: { project: projectId, package: packageId }, query: { filter } });
  return api.resolveUrl(url);
}

/**
 * Packs the tree into `path` (streamed to disk: a large build never sits in memory), as a patch when
 * `base` is given. Resolves with the archive's size.
 */
export async function packToFile(
  tree: ArchiveTree,
  path: string,
  options: { base?: ArchiveIndex; compression: CompressionAlgorithm; quiet: boolean; io: Parameters<typeof startProgress>[0] },
): Promise<{ size: number; patchSize: number; totalSize: number }> {
  let progress: ReturnType<typeof startProgress> | undefined;
  let phase: string | undefined;
  const packed = packArchive(tree, {
    chunking: options.base?.chunking ?? 1,
    compression: options.compression,
    base: options.base,
    onProgress: (p) => {
      if (p.phase !== phase) {
        progress?.finish();
        phase = p.phase;
        progress = startProgress(options.io, p.phase === 'index' ? 'indexing' : 'packing ', p.total, { quiet: options.quiet });
      }
      progress?.update(p.done);
    },
  });
  // A leftover of an interrupted run must not keep trailing bytes: start from an empty file.
  await rm(path, { force: true });
  const sink = Bun.file(path).writer();
  let size = 0;
  let unflushed = 0;
  try {
    for await (const piece of packed.stream as unknown as AsyncIterable<Uint8Array>) {
      sink.write(piece);
      size += piece.byteLength;
      unflushed += piece.byteLength;
      if (unflushed >= 8 * 1024 * 1024) {
        await sink.flush();
        unflushed = 0;
      }
    }
  } catch (error) {
    // The writer applies the reader's rules too (links, name and path limits): never upload what finalize refuses.
    await sink.end();
    throw folderRefusal(undefined, error);
  }
  await sink.end();
  const result = await packed.done;
  progress?.finish();
  return { size, patchSize: result.patchSize, totalSize: result.totalSize };
}
