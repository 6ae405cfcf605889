import { ArchiveError } from './errors.ts';
import { toHex } from './bytes.ts';
import { mapChunkPlacements, walkFiles } from './chunks.ts';
import type { ArchiveReadResult } from './reader.ts';

/**
 * Every file's bytes in memory, keyed by 'a/b/c'. For small archives, tests and tools only: it holds
 * the whole tree. Large archives go through chunks() or extractArchive.
 */
export async function readAllFiles(result: ArchiveReadResult): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  const buffers = new Map<object, Uint8Array>();
  for (const { file, parts } of walkFiles(result.index)) {
    const bytes = new Uint8Array(file.size);
    files.set(parts.join('/'), bytes);
    buffers.set(file, bytes);
  }
  const placements = mapChunkPlacements(result.index);
  const missing = new Set(placements.keys());
  for await (const chunk of result.chunks()) {
    const key = toHex(chunk.hash);
    missing.delete(key);
    for (const place of placements.get(key) ?? []) buffers.get(place.file)!.set(chunk.bytes, place.offset);
  }
  if (missing.size > 0) throw new ArchiveError('missing_chunk', `${missing.size} chunks were not provided (patch without base?)`);
  return files;
}
