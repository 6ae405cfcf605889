import { crc32 } from 'node:zlib';
import { toHex, type ArchiveChunk, type CompressionAlgorithm, type ReadChunk } from '../../../../shared/archive/index.ts';
import type { Deps } from '../../../deps.ts';
import { noteTransientBytes } from '../../../memory/transient-bytes.ts';
import { chunkIdentity } from '../blob-keys.ts';
import { recordNewPack } from '../packs/pack-rows.ts';
import { createPackWriter } from '../packs/pack-writer.ts';
import { findChunksInStore } from '../chunks/stored-chunks.ts';

export type ChunkRow = { hash: string; size: number; compressedSize: number };

/**
 * Stores an archive's chunks as finalize reads them: the store is asked once, in batches, which of the
 * index's chunks it already holds (those are not written again); the others go into pack blobs
 * (pack-writer.ts), each recorded with its stored_chunks rows as soon as it is complete, so a finalize
 * repeated after a crash finds them stored. Returns the chunks read (for package_chunks) and the CRC-32
 * of each one's raw bytes (the ZIP's CRCs come from them, zip/file-crcs.ts). One chunk in memory at a
 * time, plus the pack writer's queue.
 */
export async function storeArchiveChunks(
  deps: Pick<Deps, 'db' | 'storage' | 'config'>,
  compression: CompressionAlgorithm,
  unique: readonly ArchiveChunk[],
  chunks: AsyncIterable<ReadChunk>,
): Promise<{ own: ChunkRow[]; crcs: Map<string, number> }> {
  const inStore = await findChunksInStore(
    deps.db,
    deps.storage,
    compression,
    unique.map((chunk) => ({ hash: toHex(chunk.hash), compressedSize: chunk.compressedSize })),
  );
  const writer = createPackWriter({ storage: deps.storage, packSize: deps.config.packs.size, onSealed: (pack) => recordNewPack(deps, pack) });
  const own: ChunkRow[] = [];
  const crcs = new Map<string, number>();
  try {
    for await (const chunk of chunks) {
      const hash = toHex(chunk.hash);
      // The stream's pieces, and the raw bytes when they were decompressed (a raw chunk's are its stored bytes).
      noteTransientBytes(chunk.compressedSize + (chunk.bytes === chunk.storedBytes ? 0 : chunk.size));
      const crc = crc32(chunk.bytes) >>> 0;
      crcs.set(hash, crc);
      own.push({ hash, size: chunk.size, compressedSize: chunk.compressedSize });
      const identity = chunkIdentity(compression, hash, chunk.compressedSize);
      if (inStore.rows.has(identity) || inStore.legacy.has(identity)) continue;
      await writer.append(chunk.storedBytes, { compression, hash, compressedSize: chunk.compressedSize, crc32: crc });
    }
    await writer.finish();
  } catch (error) {
    await writer.abort(error);
    throw error;
  }
  return { own, crcs };
}
