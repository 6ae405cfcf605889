/** Spec §9: part uploads in parallel, tries per request and the pause between them. */
export const PART_UPLOAD_CONCURRENCY = 2;
export const UPLOAD_TRIES = 3;
export const UPLOAD_RETRY_DELAY_MS = 5000;
