import { fromHex, type CompressionAlgorithm } from '../../../../shared/archive/index.ts';
import { pathParamSchemas } from '../../../../shared/schemas/path-params.ts';
import type { Deps } from '../../../deps.ts';
import { notFound } from '../../../errors.ts';
import { attachmentDisposition, type RangedBody } from '../../../http/range.ts';
import { indexKey } from '../blob-keys.ts';
import { downloadFileName, getPackageForFile, type DownloadablePackage } from './downloadable-package.ts';
import { readPackageIndex, readPackageIndexBytes } from '../records/package-content.ts';
import { decodeIndex } from '../../../../shared/archive/index.ts';
import { deltaVary, openIndexDelta, type DeltaOffer } from './index-delta.ts';
import { parseDownloadKind, verifyFileSignature, type DownloadKind } from './signed-file-url.ts';
import { rawChunkLoader, storedChunkLoader } from './zip/chunks.ts';
import { loadZipCrcs, readStoredZipCrcs, storeZipCrcs } from './zip/crc.ts';
import { onePassZip, type OnePassZip } from './zip/zip-file.ts';
import { copyVirtualFileInto } from './zip/copy-into-file.ts';
import { openChunkCopier } from '../chunks/chunk-copier.ts';
import type { FileHandle } from 'node:fs/promises';
import { archiveLayout, zipLayout } from './zip/layout.ts';
import { readVirtualRange, type VirtualFile } from './zip/segments.ts';

const contentTypes: Record<DownloadKind, string> = {
  archive: 'application/octet-stream',
  index: 'application/octet-stream',
  zip: 'application/zip',
};

/**
 * Every /api/files reply is readable cross-origin: the URL itself is the credential (or the package
 * is public), and the browser reader fetches it with mode 'cors' (readArchiveFromUrl).
 */
export const fileCorsHeaders: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'content-length, content-range, content-disposition, etag, accept-ranges',
};

export type FileRequest = { packageId: string; kind: string } & ({ expires: string; signature: string } | { public: true });

/** The ZIP of a package as a layout (CRC-32s computed and cached on first use). */
export async function zipFileOf(deps: Pick<Deps, 'db' | 'storage'>, row: DownloadablePackage['row']): Promise<VirtualFile> {
  const index = await readPackageIndex(deps, row.id);
  const crcs = await loadZipCrcs(deps, row.id, index, fromHex(row.indexHash!));
  return zipLayout(index, crcs);
}

/**
 * Rules of the ZIP writer, part of a cached ZIP's key: a ZIP cached under older rules is never served
 * again. 2: links leading out of the package and names a ZIP cannot hold are refused (zip/zip-rules.ts).
 */
const ZIP_RULES_VERSION = 2;

/** Cache key of a generated download: the package's content never changes once it is ready. */
function cachedDownloadKey(row: Pick<DownloadablePackage['row'], 'id' | 'indexHash'>, kind: 'zip' | 'archive'): string {
  const stem = `${row.id}-${row.indexHash!.slice(0, 16)}`;
  return kind === 'zip' ? `${stem}-r${ZIP_RULES_VERSION}.zip` : `${stem}.${kind}`;
}

/**
 * The ZIP of a package as a local file (made on first need; undefined when the cache cannot hold it).
 * With its CRC-32s known (stored, or `known` given) the bytes are streamed from its layout; without,
 * it is written in one pass that also computes and stores them (zip/zip-file.ts).
 */
export async function cachedZipFile(
  deps: Pick<Deps, 'db' | 'storage' | 'fileCache'>,
  row: DownloadablePackage['row'],
  make: boolean,
  known?: VirtualFile,
): Promise<string | undefined> {
  const key = cachedDownloadKey(row, 'zip');
  if (!make) return deps.fileCache.find(key);
  const found = await deps.fileCache.find(key);
  if (found) return found;
  const compression = (row.compression ?? 0) as CompressionAlgorithm;
  const produce = (layout: VirtualFile) => fileProducer(deps, row.id, compression, 'raw', layout);
  if (known) return deps.fileCache.ensure(key, known.size, produce(known));
  const index = await readPackageIndex(deps, row.id);
  const indexHash = fromHex(row.indexHash!);
  const crcs = await readStoredZipCrcs(deps, row.id, index, indexHash);
  if (crcs) {
    const layout = zipLayout(index, crcs);
    return deps.fileCache.ensure(key, layout.size, produce(layout));
  }
  const pass = onePassZip(index);
  return deps.fileCache.ensure(
    key,
    pass.layout.size,
    fileProducer(deps, row.id, compression, 'raw', pass.layout, pass),
    async (handle) => storeZipCrcs(deps, row.id, await pass.finish(handle), indexHash),
  );
}

/**
 * How a download is made into the file cache: on a store that opens blobs as files, copied from the
 * packs through reused buffers (chunks/chunk-copier.ts: no garbage per chunk); else streamed from the
 * chunks. `pass` (a ZIP whose CRC-32s are not known yet) sees every byte on the way.
 */
function fileProducer(
  deps: Pick<Deps, 'db' | 'storage'>,
  packageId: string,
  compression: CompressionAlgorithm,
  bytes: 'raw' | 'stored',
  layout: VirtualFile,
  pass?: Pick<OnePassZip, 'feed' | 'transform'>,
) {
  if (deps.storage.openFile) {
    return {
      async writeInto(handle: FileHandle): Promise<number> {
        const copier = openChunkCopier(deps, packageId, compression)!;
        try {
          return await copyVirtualFileInto(handle, layout, bytes === 'raw' ? copier.raw : copier.stored, pass?.feed);
        } finally {
          await copier.release();
        }
      },
    };
  }
  const load = bytes === 'raw' ? rawChunkLoader : storedChunkLoader;
  return () => {
    const stream = readVirtualRange(layout, 0, layout.size, load(deps, packageId, compression));
    return pass ? stream.pipeThrough(pass.transform) : stream;
  };
}

/**
 * Opens what a /api/files URL names, after checking its signature (or the package's publicity). An index
 * request may carry a delta offer (Accept-Encoding with dcz, Available-Dictionary): index-delta.ts.
 */
export async function openPackageFile(deps: Deps, request: FileRequest, offer?: DeltaOffer): Promise<RangedBody> {
  const kind = parseDownloadKind(request.kind);
  // The path's id, checked as the derived doors check theirs (the public route has no signature before the lookup).
  if (!pathParamSchemas.package.safeParse(request.packageId).success) throw notFound('file');
  if ('public' in request) {
    // Only the ZIP (the torrents' web seed) has an unsigned route, and only for public packages.
    if (kind !== 'zip') throw notFound('file');
  } else {
    verifyFileSignature(deps.keys, request.packageId, kind, request.expires, request.signature);
  }
  const item = await getPackageForFile(deps, request.packageId);
  if ('public' in request && !item.isPublic) throw notFound('file');
  const { row } = item;
  const headers: Record<string, string> = {
    ...fileCorsHeaders,
    'content-type': contentTypes[kind],
    'content-disposition': attachmentDisposition(downloadFileName(item, kind)),
    'cache-control': 'private, max-age=3600',
  };
  const etag = `"${row.indexHash}-${kind}"`;
  const compression = (row.compression ?? 0) as CompressionAlgorithm;
  if (kind !== 'index') {
    // Already made: the file alone answers (no index to read, no layout to build per request).
    const ready = await deps.fileCache.find(cachedDownloadKey(row, kind));
    if (ready) {
      const file = Bun.file(ready);
      return { size: file.size, etag, headers, open: (start, end) => file.slice(start, end).stream(), file: async () => ready };
    }
  }
  switch (kind) {
    case 'index': {
      // Both replies (plain and dcz) depend on these request headers: caches must key on them.
      headers.vary = deltaVary;
      const delta = offer ? await openIndexDelta(deps, row, offer, headers) : undefined;
      if (delta) return delta;
      const stat = await deps.storage.stat(indexKey(row.id));
      if (!stat) throw notFound('file');
      return { size: stat.size, etag, headers, open: (start, end) => deps.storage.get(indexKey(row.id), { start, end: end - 1 }) };
    }
    case 'archive': {
      const indexBytes = await readPackageIndexBytes(deps, row.id);
      const layout = archiveLayout(decodeIndex(indexBytes), indexBytes, row.indexHash!);
      const key = cachedDownloadKey(row, 'archive');
      const load = () => storedChunkLoader(deps, row.id, compression);
      return {
        size: layout.size,
        etag,
        headers,
        open: (start, end) => readVirtualRange(layout, start, end, load()),
        file: (make) => (make ? deps.fileCache.ensure(key, layout.size, fileProducer(deps, row.id, compression, 'stored', layout)) : deps.fileCache.find(key)),
      };
    }
    case 'zip': {
      const layout = await zipFileOf(deps, row);
      return {
        size: layout.size,
        etag,
        headers,
        open: (start, end) => readVirtualRange(layout, start, end, rawChunkLoader(deps, row.id, compression)),
        file: (make) => cachedZipFile(deps, row, make, layout),
      };
    }
  }
}

