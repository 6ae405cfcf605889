import { createBunAdapters, toHex, type ArchiveChunk, type CompressionAlgorithm } from '../../../../../shared/archive/index.ts';
import type { Deps } from '../../../../deps.ts';
import { loadStoredChunk } from '../../records/package-content.ts';
import type { ChunkRef, LoadChunk } from './segments.ts';

const adapters = createBunAdapters();

export function chunkRefOf(chunk: ArchiveChunk): ChunkRef {
  return { hash: toHex(chunk.hash), size: chunk.size, compressedSize: chunk.compressedSize };
}

/** A chunk's bytes exactly as stored (what an archive of that compression holds). */
export function storedChunkLoader(deps: Pick<Deps, 'storage'>, compression: CompressionAlgorithm): LoadChunk {
  return (chunk) => loadStoredChunk(deps, compression, chunk.hash, chunk.compressedSize);
}

/** A chunk's file bytes: a stored zstd frame (compressedSize < size) is decompressed, capped at size. */
export function rawChunkLoader(deps: Pick<Deps, 'storage'>, compression: CompressionAlgorithm): LoadChunk {
  return async (chunk) => {
    const stored = await loadStoredChunk(deps, compression, chunk.hash, chunk.compressedSize);
    if (chunk.compressedSize >= chunk.size) return stored;
    const raw = await adapters.zstdDecompress(stored, chunk.size);
    if (raw.byteLength !== chunk.size) throw new Error(`chunk ${chunk.hash} decompressed to ${raw.byteLength} bytes, not ${chunk.size}`);
    return raw;
  };
}
