/** Spec §9 upload concurrency: packages packed at once, parts hashed at once, part uploads at once. */
export const PACKAGING_CONCURRENCY = 2;
export const HASHING_CONCURRENCY = 3;
export const PART_UPLOAD_CONCURRENCY = 2;
/** Parts held in memory per package while hashing and uploading: one waiting beyond those in flight. */
export const PARTS_IN_MEMORY = PART_UPLOAD_CONCURRENCY + 1;
/** How often a resolve job's state is asked for when its events are not followed. */
export const RESOLVE_POLL_MS = 500;
