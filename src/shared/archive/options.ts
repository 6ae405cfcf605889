import { ArchiveError } from './errors.ts';
import { detectAdapters, type ArchiveAdapters } from './adapters.ts';
import { CHUNKING_CONTENT_DEFINED, COMPRESSION_NONE, COMPRESSION_ZSTD, DEFAULT_ZSTD_LEVEL } from './constants.ts';
import type { ArchiveChunk, ArchiveIndex, ChunkingAlgorithm, CompressionAlgorithm } from './types.ts';

export type PackProgress = { phase: 'index' | 'data'; done: number; total: number };

export type PackOptions = {
  /** 1 content-defined (default) or 0 fixed-size pieces. */
  chunking?: ChunkingAlgorithm;
  /** 0 none (default) or 1 zstd per chunk where it makes the chunk smaller. */
  compression?: CompressionAlgorithm;
  level?: number;
  /** Patch mode: chunks this index already references are not stored. */
  base?: ArchiveIndex;
  adapters?: ArchiveAdapters;
  onProgress?: (progress: PackProgress) => void;
  /**
   * Chunk data from a chunk store instead of the files' sources (a server regenerating an archive
   * from a stored index): the chunk's stored bytes, exactly `compressedSize` long.
   */
  loadChunk?: LoadChunk;
};

export type LoadChunk = (chunk: ArchiveChunk, ordinal: number) => Uint8Array | undefined | Promise<Uint8Array | undefined>;

export type ResolvedPackOptions = {
  chunking: ChunkingAlgorithm;
  compression: CompressionAlgorithm;
  level: number;
  base: ArchiveIndex | undefined;
  adapters: ArchiveAdapters;
  onProgress: ((progress: PackProgress) => void) | undefined;
  loadChunk: LoadChunk | undefined;
};

export function resolvePackOptions(options: PackOptions): ResolvedPackOptions {
  const chunking = options.chunking ?? CHUNKING_CONTENT_DEFINED;
  const compression = options.compression ?? COMPRESSION_NONE;
  if (chunking !== 0 && chunking !== 1) throw new ArchiveError('invalid_option', `unknown chunking ${String(chunking)}`);
  if (compression !== 0 && compression !== 1) {
    throw new ArchiveError('invalid_option', `unknown compression ${String(compression)}`);
  }
  const adapters = options.adapters ?? detectAdapters();
  if (compression === COMPRESSION_ZSTD && adapters.zstdCompress === undefined) {
    throw new ArchiveError('invalid_option', `the ${adapters.name} adapters cannot compress: use compression 0`);
  }
  return {
    chunking,
    compression,
    level: options.level ?? DEFAULT_ZSTD_LEVEL,
    base: options.base,
    adapters,
    onProgress: options.onProgress,
    loadChunk: options.loadChunk,
  };
}
