import { ArchiveError } from '../errors.ts';
import { detectAdapters } from '../adapters.ts';
import { toHex } from '../bytes.ts';
import { DEFAULT_MAX_INDEX_SIZE } from '../constants.ts';
import { readCappedIndex } from '../index-body.ts';
import { BodyReader } from './body-reader.ts';
import { fetchFailed, request, type RemoteOptions } from './request.ts';

/**
 * Fetches an encoded index file (the `.crt-index` download: index bytes only) and checks it against
 * `expectedHash` (hex) when given. Returns the bytes and their SHA-256; decoding is the caller's.
 */
export async function fetchIndexFile(
  url: string,
  options: RemoteOptions & { expectedHash?: string; maxIndexSize?: number } = {},
): Promise<{ bytes: Uint8Array; hash: Uint8Array }> {
  const adapters = options.adapters ?? detectAdapters();
  const maxIndexSize = options.maxIndexSize ?? DEFAULT_MAX_INDEX_SIZE;
  const response = await request(url, undefined, options);
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    throw fetchFailed(url, response.status);
  }
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxIndexSize) {
    await response.body?.cancel().catch(() => undefined);
    throw new ArchiveError('wrong_index_size', `the index is ${declared} bytes, above the limit of ${maxIndexSize}`);
  }
  const body = new BodyReader(response.body!, options.stats, options.signal);
  const bytes = await readCappedIndex(body, maxIndexSize, maxIndexSize);
  const hash = await adapters.sha256(bytes);
  if (options.expectedHash !== undefined && toHex(hash) !== options.expectedHash.toLowerCase()) {
    throw new ArchiveError('wrong_index_hash', 'the package index does not match its hash');
  }
  return { bytes, hash };
}
