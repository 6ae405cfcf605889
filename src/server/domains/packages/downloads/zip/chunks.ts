import { toHex, type ArchiveChunk, type CompressionAlgorithm } from '../../../../../shared/archive/index.ts';
import type { Deps } from '../../../../deps.ts';
import { openPackageChunkReader, type ChunkReader } from '../../chunks/chunk-reader.ts';
import type { ChunkRef, LoadChunk } from './segments.ts';

export function chunkRefOf(chunk: ArchiveChunk): ChunkRef {
  return { hash: toHex(chunk.hash), size: chunk.size, compressedSize: chunk.compressedSize };
}

/** One reader per range read: its open pack reads end with the range (readVirtualRange calls release). */
function loaderOf(reader: ChunkReader, read: (chunk: ChunkRef) => Promise<Uint8Array>): LoadChunk {
  return Object.assign(read, { release: () => reader.release() });
}

/** A package's chunks exactly as stored (what an archive of that compression holds). */
export function storedChunkLoader(deps: Pick<Deps, 'db' | 'storage'>, packageId: string, compression: CompressionAlgorithm): LoadChunk {
  const reader = openPackageChunkReader(deps, packageId, compression);
  return loaderOf(reader, reader.stored);
}

/** A package's chunks as file bytes: a stored zstd frame (compressedSize < size) is decompressed, capped at size. */
export function rawChunkLoader(deps: Pick<Deps, 'db' | 'storage'>, packageId: string, compression: CompressionAlgorithm): LoadChunk {
  const reader = openPackageChunkReader(deps, packageId, compression);
  return loaderOf(reader, reader.raw);
}
