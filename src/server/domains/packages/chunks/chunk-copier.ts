import type { CompressionAlgorithm } from '../../../../shared/archive/index.ts';
import type { Deps } from '../../../deps.ts';
import { noteTransientBytes } from '../../../memory/transient-bytes.ts';
import type { BlobFile, BlobStore } from '../../../storage/index.ts';
import { packKey } from '../blob-keys.ts';
import { packageChunkLocator, type ChunkLocation, type ChunkLocator } from './chunk-locations.ts';
import { rawChunkBytes, readStoredChunk, type ChunkRef } from './chunk-reader.ts';

/**
 * Chunks read for a copy into a local file (the download cache's ZIPs and archives): on the file store,
 * out of their packs through one reused window of pack bytes, so a pass over a package makes no garbage
 * per chunk. chunk-reader.ts makes a buffer per chunk, which JavaScriptCore frees only when a collection
 * runs: paced by memory/transient-bytes.ts, a ZIP file made that way ran at a third of this speed and
 * still peaked above 256 MB. A returned view is valid until the next call. Chunks of legacy blobs and
 * zstd frames (decompressed) still cost a buffer each, counted as transient bytes. Undefined for a store
 * that cannot open blobs as files (S3): callers stream through chunk-reader.ts instead.
 */
export type ChunkCopier = {
  /** The chunk's stored bytes (zstd frame or raw, as in an archive of its compression). */
  stored(chunk: ChunkRef): Promise<Uint8Array>;
  /** The chunk's file bytes: a zstd frame (compressedSize < size) decompressed. */
  raw(chunk: ChunkRef): Promise<Uint8Array>;
  release(): Promise<void>;
};

/** Pack bytes read at once: consecutive chunks of a pack come out of one read. Chunks are ≤ 256 KiB. */
const windowBytes = 4 * 1024 * 1024;
const openPacks = 4;

export function openChunkCopier(deps: Pick<Deps, 'db' | 'storage'>, packageId: string, compression: CompressionAlgorithm): ChunkCopier | undefined {
  if (!deps.storage.openFile) return undefined;
  return createChunkCopier(deps.storage, compression, packageChunkLocator(deps, packageId));
}

function createChunkCopier(storage: BlobStore, compression: CompressionAlgorithm, locator: ChunkLocator): ChunkCopier {
  const files = new Map<string, Promise<BlobFile>>();
  let window = new Uint8Array(windowBytes);
  /** What the window holds: bytes start..end of a pack. */
  let held: { packId: string; start: number; end: number } | undefined;

  function fileOf(packId: string): Promise<BlobFile> {
    let file = files.get(packId);
    if (file) {
      // Most recently used last: the oldest is closed first.
      files.delete(packId);
      files.set(packId, file);
      return file;
    }
    file = storage.openFile!(packKey(packId));
    file.catch(() => files.delete(packId));
    files.set(packId, file);
    if (files.size > openPacks) {
      const [oldest, closing] = files.entries().next().value!;
      files.delete(oldest);
      void closing.then((opened) => opened.close()).catch(() => undefined);
    }
    return file;
  }

  async function fromPack(location: ChunkLocation, length: number): Promise<Uint8Array> {
    const inWindow = held && held.packId === location.packId && location.offset >= held.start && location.offset + length <= held.end;
    if (!inWindow) {
      held = undefined;
      const file = await fileOf(location.packId);
      if (window.byteLength < length) window = new Uint8Array(length);
      let filled = 0;
      // Positioned reads until the chunk is in (a short read is not the end unless it reads nothing).
      while (filled < length) {
        const count = await file.read(window.subarray(filled), location.offset + filled);
        if (count === 0) throw new Error(`pack ${location.packId} ended before a chunk it holds`);
        filled += count;
      }
      held = { packId: location.packId, start: location.offset, end: location.offset + filled };
    }
    const from = location.offset - held!.start;
    return window.subarray(from, from + length);
  }

  async function stored(chunk: ChunkRef): Promise<Uint8Array> {
    const bytes = await readStoredChunk(storage, compression, locator, chunk, fromPack);
    // Not a view of the window: a legacy chunk's blob, read into a buffer of its own.
    if (bytes.buffer !== window.buffer) noteTransientBytes(bytes.byteLength);
    return bytes;
  }

  return {
    stored,
    async raw(chunk) {
      const bytes = await stored(chunk);
      const raw = await rawChunkBytes(chunk, bytes);
      if (raw !== bytes) noteTransientBytes(raw.byteLength);
      return raw;
    },
    async release() {
      const closing = [...files.values()];
      files.clear();
      held = undefined;
      await Promise.all(closing.map((file) => file.then((opened) => opened.close()).catch(() => undefined)));
    },
  };
}
