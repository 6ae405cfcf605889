import type { PartDescriptor } from '../../shared/schemas/packages.ts';
import type { BlobStore } from '../storage/index.ts';
import { AppError } from '../errors.ts';

/**
 * The uploaded parts read back in order as one stream (the file as the client sent it), pulled one
 * storage read at a time. Each part is re-hashed on the way: a part replaced since its PUT (a racing
 * re-send with other bytes) fails the stream instead of reaching its reader (the archive reader, the
 * image encoder) unnoticed.
 */
export function streamParts(
  storage: BlobStore,
  uploadId: string,
  parts: readonly PartDescriptor[],
  /** Where each part's blob is: each upload kind keeps its parts under its own prefix. */
  keyOf: (id: string, part: number) => string,
): ReadableStream<Uint8Array> {
  let index = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let hasher: Bun.CryptoHasher | undefined;
  let size = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (index >= parts.length) return controller.close();
        const part = parts[index]!;
        if (!reader) {
          reader = (await storage.get(keyOf(uploadId, part.part))).getReader();
          hasher = new Bun.CryptoHasher('sha1');
          size = 0;
        }
        const { done, value } = await reader.read();
        if (!done) {
          hasher!.update(value);
          size += value.byteLength;
          controller.enqueue(value);
          return;
        }
        reader = undefined;
        if (size !== part.size || hasher!.digest('hex') !== part.hash.toLowerCase()) {
          throw new AppError('bad_param', `Invalid \`parts\`: part ${part.part} changed since it was uploaded`);
        }
        index++;
      }
    },
    async cancel(reason) {
      await reader?.cancel(reason);
    },
  });
}
