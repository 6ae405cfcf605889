import { randomBytes } from 'node:crypto';
import type { CompressionAlgorithm } from '../../../shared/archive/index.ts';

/**
 * The storage layout of packages (the packages contract): upload parts, chunks and indexes. At the
 * domain's root, since every room of it (uploads, records, downloads, chunks, packs) names these keys.
 *
 * Chunks live in pack blobs, `packs/{id}`: the stored bytes of many chunks back to back (≈ PACK_SIZE,
 * 32 MiB, each), so a GiB is a few dozen blobs to write, sync and fetch rather than ≈ 16,000. The
 * stored_chunks table (db/schema/packs.ts) says where each chunk lives (pack, offset); a chunk's bytes
 * are exactly as they appear in an archive of its compression (a zstd archive keeps a chunk raw when
 * zstd does not shrink it), and the hash is of the raw bytes. Writing: packs/pack-writer.ts; reading:
 * chunks/chunk-reader.ts; collecting and repacking: chunk-gc.service.ts, pack-maintenance.ts; crash
 * leftovers: storage-sweep.service.ts.
 *
 * A chunk is identified by compression, hash AND stored size: clients compress at the level they like,
 * so the same raw chunk has several valid zstd frames, and each package's index lists the size of its
 * own. One stored copy per (compression, hash, compressedSize) guarantees that regenerating any
 * package's archive from the store gives back exactly the bytes its index describes (a frame of another
 * length would break every offset after it). Two frames of the same length are interchangeable for that
 * purpose: both decompress to the hashed bytes, which finalize verifies before storing.
 *
 * Chunks stored before packs existed keep their own blob (the legacy layout, read and collected as
 * before, never written any more): `chunks/raw/{hash}` or `chunks/zstd/{hash}-{compressedSize}`.
 */
export function partKey(packageId: string, part: number): string {
  return `uploads/${packageId}/${part}`;
}

export function uploadPrefix(packageId: string): string {
  return `uploads/${packageId}/`;
}

/** A legacy chunk blob: `chunks/raw/{hash}`, or `chunks/zstd/{hash}-{compressedSize}` (see above). */
export function chunkKey(compression: CompressionAlgorithm, hashHex: string, compressedSize: number): string {
  return compression === 1 ? `chunks/zstd/${hashHex}-${compressedSize}` : `chunks/raw/${hashHex}`;
}

/** What names a stored chunk within one compression: its key suffix. */
export function chunkIdentity(compression: CompressionAlgorithm, hashHex: string, compressedSize: number): string {
  return compression === 1 ? `${hashHex}-${compressedSize}` : hashHex;
}

export const packPrefix = 'packs/';

export function packKey(packId: string): string {
  return `${packPrefix}${packId}`;
}

/** 24 random hex characters: packs are named by nothing in their content (the same chunk may be in two). */
export function newPackId(): string {
  return randomBytes(12).toString('hex');
}

/** Everything stored for one package apart from chunks and parts: its index and derived blobs. */
export function packagePrefix(packageId: string): string {
  return `packages/${packageId}/`;
}

export function indexKey(packageId: string): string {
  return `packages/${packageId}/index`;
}
