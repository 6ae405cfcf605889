import { createBunAdapters, type CompressionAlgorithm } from '../../../../shared/archive/index.ts';
import type { Deps } from '../../../deps.ts';
import { AppError } from '../../../errors.ts';
import type { BlobStore } from '../../../storage/index.ts';
import { chunkKey } from '../blob-keys.ts';
import { packageChunkLocator, type ChunkLocation, type ChunkLocator } from './chunk-locations.ts';
import { PackCursor } from '../packs/pack-cursor.ts';

/**
 * The one way chunks are read back (downloads, the ZIP and its CRC-32s, torrents, deploys, the play
 * origin, repacks). A chunk in a pack is read through a PackCursor: a reader following a package in
 * order (downloads) gets chunk after chunk from one ranged read per pack, grown as the reads stay
 * sequential (1 MiB, then 4, 16, 64: a GiB costs a few dozen GETs), while a reader jumping about (Range
 * requests, BitTorrent pieces) reads little past what it asked for. A chunk without a location is read
 * from its legacy blob. A pack found gone (a repack moved its chunks) makes the locator load again, once.
 * release() ends the ranged reads still open: call it when done (readVirtualRange does).
 */
export type ChunkReader = {
  /** The chunk's stored bytes (zstd frame or raw, as in an archive of its compression), exactly compressedSize of them. */
  stored(chunk: ChunkRef): Promise<Uint8Array>;
  /** The chunk's file bytes: a zstd frame (compressedSize < size) decompressed, capped at size. */
  raw(chunk: ChunkRef): Promise<Uint8Array>;
  release(): void;
};

export type ChunkRef = { hash: string; size: number; compressedSize: number };

const adapters = createBunAdapters();
const firstSpan = 1024 * 1024;
const largestSpan = 64 * 1024 * 1024;
/** Bytes a cursor skips rather than opening another read (dead bytes, another package's chunks). */
const maxSkip = 1024 * 1024;
const openCursors = 4;

export function openChunkReader(storage: BlobStore, compression: CompressionAlgorithm, locator: ChunkLocator): ChunkReader {
  const cursors: PackCursor[] = [];
  let span = firstSpan;
  let last: { packId: string; end: number } | undefined;

  /** Sequential: right after the last chunk read, or near the start of the next pack. */
  function nextSpan(location: ChunkLocation): number {
    const sequential = last !== undefined && (last.packId === location.packId ? location.offset >= last.end && location.offset - last.end <= maxSkip : location.offset <= maxSkip);
    span = sequential ? Math.min(span * 4, largestSpan) : firstSpan;
    return span;
  }

  function fromPack(location: ChunkLocation, length: number): Promise<Uint8Array> {
    let cursor = cursors.find((item) => item.packId === location.packId && item.canRead(location.offset, length, maxSkip));
    if (!cursor) {
      cursor = new PackCursor(storage, location.packId, location.offset, location.offset + Math.max(length, nextSpan(location)));
      cursors.push(cursor);
      if (cursors.length > openCursors) cursors.shift()!.close();
    }
    last = { packId: location.packId, end: location.offset + length };
    return cursor.read(location.offset, length);
  }

  const stored = (chunk: ChunkRef) => readStoredChunk(storage, compression, locator, chunk, fromPack);

  return {
    stored,
    async raw(chunk) {
      return rawChunkBytes(chunk, await stored(chunk));
    },
    release() {
      for (const cursor of cursors.splice(0)) cursor.close();
    },
  };
}

/**
 * A chunk's stored bytes, exactly compressedSize of them: from its pack through `fromPack`, or from its
 * legacy blob when it has no location. A pack found gone (a repack moved its chunks) makes the locator
 * load again, once.
 */
export async function readStoredChunk(
  storage: BlobStore,
  compression: CompressionAlgorithm,
  locator: ChunkLocator,
  chunk: ChunkRef,
  fromPack: (location: ChunkLocation, length: number) => Promise<Uint8Array>,
): Promise<Uint8Array> {
  for (let attempt = 0; ; attempt++) {
    const location = await locator.locate(chunk);
    try {
      const bytes = location ? await fromPack(location, chunk.compressedSize) : await storage.read(chunkKey(compression, chunk.hash, chunk.compressedSize));
      if (bytes.byteLength !== chunk.compressedSize) throw new Error(`chunk ${chunk.hash} holds ${bytes.byteLength} bytes, its index says ${chunk.compressedSize}`);
      return bytes;
    } catch (error) {
      if (attempt > 0 || !(error instanceof AppError) || error.code !== 'not_found') throw error;
      locator.refresh();
    }
  }
}

/** A chunk's file bytes from its stored bytes: a zstd frame (compressedSize < size) decompressed and checked, else the same bytes. */
export async function rawChunkBytes(chunk: ChunkRef, stored: Uint8Array): Promise<Uint8Array> {
  if (chunk.compressedSize >= chunk.size) return stored;
  const raw = await adapters.zstdDecompress(stored, chunk.size);
  if (raw.byteLength !== chunk.size) throw new Error(`chunk ${chunk.hash} decompressed to ${raw.byteLength} bytes, not ${chunk.size}`);
  return raw;
}

/** A reader of a ready package's chunks (located through its package_chunks, cached per process). */
export function openPackageChunkReader(deps: Pick<Deps, 'db' | 'storage'>, packageId: string, compression: CompressionAlgorithm): ChunkReader {
  return openChunkReader(deps.storage, compression, packageChunkLocator(deps, packageId));
}
