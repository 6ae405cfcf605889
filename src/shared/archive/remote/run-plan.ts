import { toHex } from '../bytes.ts';
import { listUniqueChunks } from '../chunks.ts';
import { INDEX_HASH_SIZE } from '../constants.ts';
import { encodeHeader } from '../format.ts';
import type { ArchiveChunk, ArchiveIndex } from '../types.ts';

/**
 * Which bytes of an archive to fetch for the chunks a reader lacks (remote/: an archive read over HTTP
 * by byte ranges, for the companion app's updates and the cloud-play agent's chunk cache). The layout
 * is `magic flags indexSize index indexHash chunkData` and the chunk data holds every distinct chunk
 * once, in first-reference order, each in its `compressedSize` bytes; so once the index is known
 * (index-read.ts), every chunk's byte range in the archive is too (locateChunks), and only the wanted
 * ones need fetching: runs of neighbouring wanted chunks, one Range request each (planRuns), joined
 * across short stretches of unwanted chunks, each run bounded in size, fetched a few at once
 * (run-fetch.ts). A server that ignores Range answers 200 with the whole archive: readRemoteIndex then
 * reports `rangeSupported: false`, and callers plan one run.
 */

/** One distinct chunk and where its stored bytes lie in the archive. */
export type LocatedChunk = {
  /** Position among the distinct chunks (first-reference order). */
  ordinal: number;
  chunk: ArchiveChunk;
  hex: string;
  /** Byte offset of its stored bytes in the archive. */
  offset: number;
};

/** What planRuns needs of a chunk; callers extend it with their own fields. */
export type PlannedChunk = { chunk: ArchiveChunk; offset: number; missing: boolean };

/** One Range request: bytes start..end (end exclusive) covering `chunks` (missing ones and the gaps between them). */
export type Run<T extends PlannedChunk = PlannedChunk> = { start: number; end: number; chunks: T[] };

export const DEFAULT_RUN_OPTIONS = {
  /** Largest Range request. */
  maxRangeBytes: 32 * 1024 * 1024,
  /** Unwanted chunks up to this many bytes between two wanted ones are fetched rather than split the request. */
  gapBytes: 256 * 1024,
  /** Range requests at once. */
  concurrency: 4,
};

/** Offset of the chunk data in an archive whose (non-patch) index is `indexSize` bytes. */
export function archiveDataStart(indexSize: number): number {
  return encodeHeader(false, indexSize).length + indexSize + INDEX_HASH_SIZE;
}

/** Every distinct chunk of the index with its offset in the archive (data starting at `dataStart`). */
export function locateChunks(index: ArchiveIndex, dataStart: number): LocatedChunk[] {
  const located: LocatedChunk[] = [];
  let offset = dataStart;
  let ordinal = 0;
  for (const chunk of listUniqueChunks(index)) {
    located.push({ ordinal: ordinal++, chunk, hex: toHex(chunk.hash), offset });
    offset += chunk.compressedSize;
  }
  return located;
}

/** Runs of missing chunks, in archive order, each one Range request of at most `maxRangeBytes` (a lone chunk may exceed it). */
export function planRuns<T extends PlannedChunk>(chunks: readonly T[], maxRangeBytes: number, gapBytes: number): Run<T>[] {
  const runs: Run<T>[] = [];
  let current: Run<T> | undefined;
  let pending: T[] = [];
  for (const planned of chunks) {
    const end = planned.offset + planned.chunk.compressedSize;
    if (!planned.missing) {
      if (current) pending.push(planned);
      continue;
    }
    const gap = current ? planned.offset - current.end : 0;
    if (current && gap <= gapBytes && end - current.start <= maxRangeBytes) {
      for (const item of pending) current.chunks.push(item);
      current.chunks.push(planned);
      current.end = end;
    } else {
      current = { start: planned.offset, end, chunks: [planned] };
      runs.push(current);
    }
    pending = [];
  }
  return runs;
}
