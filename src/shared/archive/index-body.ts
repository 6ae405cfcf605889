import { ArchiveError } from './errors.ts';

/** A response body being read (remote/body-reader.ts): all of it within a limit, and its release. */
type IndexBody = { readAll(limit: number): Promise<Uint8Array>; cancel(): Promise<void> };

/** An index larger than the client accepts (wrong_index_size). */
export function indexAboveLimit(maxIndexSize: number): ArchiveError {
  return new ArchiveError('wrong_index_size', `the index is above the limit of ${maxIndexSize} bytes`);
}

/**
 * The whole body of an index download (a `.crt-index` file, or its dcz delta with its header), refused
 * as wrong_index_size once more than `limit` bytes arrive; the body is released whatever happens.
 * `maxIndexSize` is the limit the refusal names (a delta's limit adds its header).
 */
export async function readCappedIndex(body: IndexBody, limit: number, maxIndexSize: number): Promise<Uint8Array> {
  try {
    return await body.readAll(limit);
  } catch (error) {
    throw error instanceof ArchiveError && error.code === 'invalid_option' ? indexAboveLimit(maxIndexSize) : error;
  } finally {
    await body.cancel();
  }
}
