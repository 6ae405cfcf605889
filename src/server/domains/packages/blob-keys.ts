import type { CompressionAlgorithm } from '../../../shared/archive/index.ts';

/**
 * The storage layout of packages (the packages contract): upload parts, content-addressed chunks and
 * indexes. A chunk's key names the archive compression it was stored under: its bytes are exactly as
 * they appear in an archive of that compression (a zstd archive keeps a chunk raw when zstd does not
 * shrink it), and the hash is of the raw bytes.
 */
export function partKey(packageId: string, part: number): string {
  return `uploads/${packageId}/${part}`;
}

export function uploadPrefix(packageId: string): string {
  return `uploads/${packageId}/`;
}

export function chunkKey(compression: CompressionAlgorithm, hashHex: string): string {
  return `chunks/${compression === 1 ? 'zstd' : 'raw'}/${hashHex}`;
}

export function indexKey(packageId: string): string {
  return `packages/${packageId}/index`;
}
