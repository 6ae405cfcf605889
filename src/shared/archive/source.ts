import { ArchiveError } from './errors.ts';
import type { FileSource } from './types.ts';

/**
 * Streams a source, checking it delivers exactly `size` bytes. Breaking out of the loop early cancels
 * the source. Failures of the source become source_read_failed / source_changed.
 */
export async function* iterateSource(source: FileSource | undefined, size: number, path: string): AsyncGenerator<Uint8Array> {
  if (source === undefined) throw new ArchiveError('source_read_failed', `'${path}' has no source`, { path });
  if (source.size !== size) {
    throw new ArchiveError('source_changed', `'${path}' is now ${source.size} bytes, was ${size}`, { path });
  }
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = source.stream().getReader();
  } catch (error) {
    throw new ArchiveError('source_read_failed', `cannot read '${path}'`, { path, cause: error });
  }
  let total = 0;
  let complete = false;
  try {
    for (;;) {
      let result: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;
      try {
        result = await reader.read();
      } catch (error) {
        throw new ArchiveError('source_read_failed', `cannot read '${path}'`, { path, cause: error });
      }
      if (result.done) break;
      total += result.value.length;
      if (total > size) throw new ArchiveError('source_changed', `'${path}' grew past ${size} bytes`, { path });
      yield result.value;
    }
    complete = true;
  } finally {
    if (!complete) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  if (total !== size) throw new ArchiveError('source_changed', `'${path}' gave ${total} bytes, expected ${size}`, { path });
}
