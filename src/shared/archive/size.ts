import { toHex } from './bytes.ts';
import { collectChunkHashes, listUniqueChunks } from './chunks.ts';
import { INDEX_HASH_SIZE } from './constants.ts';
import { encodeHeader, encodePatchSection } from './format.ts';
import { encodeIndex } from './index-encode.ts';
import type { ArchiveIndex } from './types.ts';

export type ArchiveSize = {
  /** Bytes packArchive(index, { base }) will produce: what an upload declares before sending. */
  totalSize: number;
  /** Stored bytes of the chunks the base lacks (all chunks without a base). */
  patchSize: number;
  indexSize: number;
};

/**
 * The exact size of the archive of a ready index, without producing it: header, index, index hash,
 * patch section (with a base) and the stored chunks. Lets an upload declare its size, then stream.
 */
export function archiveSize(index: ArchiveIndex, options: { base?: ArchiveIndex } = {}): ArchiveSize {
  const baseHashes = options.base === undefined ? new Set<string>() : collectChunkHashes(options.base);
  const storedOrdinals: number[] = [];
  let patchSize = 0;
  listUniqueChunks(index).forEach((chunk, ordinal) => {
    if (baseHashes.has(toHex(chunk.hash))) return;
    storedOrdinals.push(ordinal);
    patchSize += chunk.compressedSize;
  });
  const indexSize = encodeIndex(index).reduce((sum, part) => sum + part.length, 0);
  const patch = options.base !== undefined;
  // The patch section's length does not depend on the base hash's value, only on its fixed size.
  const patchSection = patch ? encodePatchSection(new Uint8Array(INDEX_HASH_SIZE), storedOrdinals).length : 0;
  const totalSize = encodeHeader(patch, indexSize).length + indexSize + INDEX_HASH_SIZE + patchSection + patchSize;
  return { totalSize, patchSize, indexSize };
}
