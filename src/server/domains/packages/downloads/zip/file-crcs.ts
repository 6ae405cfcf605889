import { toHex, type ArchiveIndex } from '../../../../../shared/archive/index.ts';
import { filesOf } from './crc.ts';
import { crc32Combine } from './crc32-combine.ts';

/**
 * Every file's CRC-32 in index order (what the ZIP's headers need, zip/crc.ts) from the CRC-32 of each
 * distinct chunk's raw bytes, without reading a byte: finalize and resolve know the chunks' CRCs.
 * Undefined when a chunk's CRC is not known.
 */
export function fileCrcsFromChunks(index: ArchiveIndex, chunkCrc: (hashHex: string) => number | undefined): Uint32Array | undefined {
  const files = filesOf(index);
  const crcs = new Uint32Array(files.length);
  for (let i = 0; i < files.length; i++) {
    let crc = 0;
    for (const chunk of files[i]!.chunks ?? []) {
      const part = chunkCrc(toHex(chunk.hash));
      if (part === undefined) return undefined;
      crc = crc32Combine(crc, part, chunk.size);
    }
    crcs[i] = crc;
  }
  return crcs;
}
