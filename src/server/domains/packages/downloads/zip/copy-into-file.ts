import type { FileHandle } from 'node:fs/promises';
import type { ChunkRef, VirtualFile } from './segments.ts';

/** Bytes gathered before a write: a few system calls per MiB instead of one per header and chunk. */
const writeBytes = 4 * 1024 * 1024;

/**
 * Writes a layout's bytes (chunks/chunk-copier.ts gives its chunks) at the handle's position through one
 * reused buffer, handing each segment's bytes to `feed` first (zip-file.ts computes CRC-32s there). A
 * chunk's bytes are used before the next is asked for, as the copier requires. Returns the bytes written.
 */
export async function copyVirtualFileInto(
  handle: FileHandle,
  file: VirtualFile,
  chunkBytes: (chunk: ChunkRef) => Promise<Uint8Array>,
  feed?: (piece: Uint8Array) => void,
): Promise<number> {
  const out = new Uint8Array(writeBytes);
  let used = 0;
  let written = 0;
  const flush = async () => {
    for (let offset = 0; offset < used; ) {
      const { bytesWritten } = await handle.write(out, offset, used - offset);
      offset += bytesWritten;
    }
    written += used;
    used = 0;
  };
  for (const segment of file.segments) {
    const bytes = segment.bytes ?? (await chunkBytes(segment.chunk));
    feed?.(bytes);
    for (let from = 0; from < bytes.byteLength; ) {
      if (used === out.byteLength) await flush();
      const take = Math.min(bytes.byteLength - from, out.byteLength - used);
      out.set(bytes.subarray(from, from + take), used);
      used += take;
      from += take;
    }
  }
  await flush();
  return written;
}
