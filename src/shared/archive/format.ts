import { ArchiveError } from './errors.ts';
import { ARCHIVE_MAGIC, FLAG_PATCH } from './constants.ts';
import { concatBytes } from './bytes.ts';
import { encodeVarint } from './varint.ts';

/** magic | flags varint | index size varint. The index, its SHA-256 and the patch section follow. */
export function encodeHeader(patch: boolean, indexSize: number): Uint8Array {
  return concatBytes([ARCHIVE_MAGIC, encodeVarint(patch ? FLAG_PATCH : 0), encodeVarint(indexSize)]);
}

/**
 * Patch section: base index hash, then which distinct chunks (by first-reference ordinal) the data
 * holds, as a count and gaps (ordinal minus previous ordinal minus one), so a small patch stays small.
 */
export function encodePatchSection(baseIndexHash: Uint8Array, storedOrdinals: readonly number[]): Uint8Array {
  const parts: Uint8Array[] = [baseIndexHash, encodeVarint(storedOrdinals.length)];
  let previous = -1;
  for (const ordinal of storedOrdinals) {
    if (ordinal <= previous) throw new ArchiveError('invalid_entry', 'stored ordinals must increase');
    parts.push(encodeVarint(ordinal - previous - 1));
    previous = ordinal;
  }
  return concatBytes(parts);
}
