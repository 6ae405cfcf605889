import type { CompressionAlgorithm } from '../../../../shared/archive/index.ts';

/**
 * The storage layout of packages (the packages contract): upload parts, content-addressed chunks and
 * indexes. A chunk's key names the archive compression it was stored under: its bytes are exactly as
 * they appear in an archive of that compression (a zstd archive keeps a chunk raw when zstd does not
 * shrink it), and the hash is of the raw bytes.
 *
 * zstd chunks are keyed by hash AND stored size: clients compress at the level they like, so the same
 * raw chunk has several valid zstd frames, and each package's index lists the size of its own. One
 * blob per (hash, compressedSize) guarantees that regenerating any package's archive from the store
 * gives back exactly the bytes its index describes (a frame of another length would break every offset
 * after it). Two frames of the same length are interchangeable for that purpose: both decompress to the
 * hashed bytes, which finalize verifies before storing.
 */
export function partKey(packageId: string, part: number): string {
  return `uploads/${packageId}/${part}`;
}

export function uploadPrefix(packageId: string): string {
  return `uploads/${packageId}/`;
}

/** `chunks/raw/{hash}`, or `chunks/zstd/{hash}-{compressedSize}` (see above). */
export function chunkKey(compression: CompressionAlgorithm, hashHex: string, compressedSize: number): string {
  return compression === 1 ? `chunks/zstd/${hashHex}-${compressedSize}` : `chunks/raw/${hashHex}`;
}

/** What names a stored chunk within one compression: its key suffix. */
export function chunkIdentity(compression: CompressionAlgorithm, hashHex: string, compressedSize: number): string {
  return compression === 1 ? `${hashHex}-${compressedSize}` : hashHex;
}

/** Everything stored for one package apart from chunks and parts: its index and derived blobs. */
export function packagePrefix(packageId: string): string {
  return `packages/${packageId}/`;
}

export function indexKey(packageId: string): string {
  return `packages/${packageId}/index`;
}
