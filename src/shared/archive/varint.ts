import { ArchiveError } from './errors.ts';

/** Largest value a varint may carry: beyond it JS numbers lose integer precision. */
export const MAX_VARINT = Number.MAX_SAFE_INTEGER;
const MAX_VARINT_BYTES = 8;

/** LEB128 unsigned: 7 bits per byte, low group first, high bit set on every byte but the last. */
export function encodeVarint(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ArchiveError('invalid_entry', `cannot encode ${value} as a varint`);
  }
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return Uint8Array.from(out);
}

export type VarintResult = { value: number; next: number };

/**
 * Decodes at `offset`. Rejects truncation, values above 2^53 - 1 and non-minimal encodings (a trailing
 * zero group), so every number has exactly one encoding and the index bytes of a tree are unique.
 */
export function decodeVarint(bytes: Uint8Array, offset: number): VarintResult {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < MAX_VARINT_BYTES; i++) {
    const position = offset + i;
    if (position >= bytes.length) throw new ArchiveError('invalid_entry', 'truncated varint');
    const byte = bytes[position]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      if (byte === 0 && i > 0) throw new ArchiveError('invalid_entry', 'non-minimal varint');
      if (value > MAX_VARINT) throw new ArchiveError('invalid_entry', 'varint overflow');
      return { value, next: position + 1 };
    }
    scale *= 0x80;
  }
  throw new ArchiveError('invalid_entry', 'varint overflow');
}
