import { CHUNKING_FIXED, COMPRESSION_NONE, type PackOptions } from '../../shared/archive/index.ts';

/**
 * Spec §9: browser uploads use fixed-size chunking and no compression (the browser has no zstd
 * encoder). The new package dialog indexes with the same options, so the patch size it shows is the
 * one uploaded. The concurrency limits are src/shared/upload/constants.ts.
 */
export const UPLOAD_PACK_OPTIONS = { chunking: CHUNKING_FIXED, compression: COMPRESSION_NONE } as const satisfies PackOptions;
