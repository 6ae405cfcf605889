import { CHUNKING_FIXED, COMPRESSION_NONE, type PackOptions } from '../../shared/archive/index.ts';
import { PART_UPLOAD_CONCURRENCY } from '../../shared/upload/index.ts';

/** Spec §9: packages packed at once, parts hashed at once (part uploads: PART_UPLOAD_CONCURRENCY). */
export const PACKAGING_CONCURRENCY = 2;
export const HASHING_CONCURRENCY = 3;
/** Parts held in memory per package while hashing and uploading: one waiting beyond those in flight. */
export const PARTS_IN_MEMORY = PART_UPLOAD_CONCURRENCY + 1;
/** How often a resolve job's state is asked for. */
export const RESOLVE_POLL_MS = 500;

/**
 * Spec §9: browser uploads use fixed-size chunking and no compression (the browser has no zstd
 * encoder). The new package dialog indexes with the same options, so the patch size it shows is the
 * one uploaded.
 */
export const UPLOAD_PACK_OPTIONS = { chunking: CHUNKING_FIXED, compression: COMPRESSION_NONE } as const satisfies PackOptions;
