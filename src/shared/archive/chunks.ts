import { ArchiveError } from './errors.ts';
import { toHex } from './bytes.ts';
import { walkEntries } from './tree.ts';
import type { ArchiveChunk, ArchiveFile, ArchiveIndex } from './types.ts';

export type ChunkPlacement = { file: ArchiveFile; parts: string[]; offset: number };

/** Every file with its path parts, in index order. */
export function* walkFiles(index: ArchiveIndex): Generator<{ file: ArchiveFile; parts: string[] }> {
  for (const { entry, parts } of walkEntries(index.root)) if (entry.kind === 'file') yield { file: entry, parts };
}

/**
 * Distinct chunks in order of first reference: the order of the archive's chunk data. The same hash
 * with two different sizes is a broken index.
 */
export function listUniqueChunks(index: ArchiveIndex): ArchiveChunk[] {
  const seen = new Map<string, ArchiveChunk>();
  for (const { file, parts } of walkFiles(index)) {
    for (const chunk of file.chunks ?? []) {
      const key = toHex(chunk.hash);
      const known = seen.get(key);
      if (known === undefined) seen.set(key, chunk);
      else if (known.size !== chunk.size || known.compressedSize !== chunk.compressedSize) {
        throw new ArchiveError('invalid_entry', `chunk ${key} has two different sizes`, { path: parts.join('/') });
      }
    }
  }
  return [...seen.values()];
}

export function collectChunkHashes(index: ArchiveIndex): Set<string> {
  const hashes = new Set<string>();
  for (const { file } of walkFiles(index)) for (const chunk of file.chunks ?? []) hashes.add(toHex(chunk.hash));
  return hashes;
}

/** Bytes a patch from `baseIndex` to `newIndex` carries: stored sizes of the chunks the base lacks. */
export function computePatchSize(newIndex: ArchiveIndex, baseIndex: ArchiveIndex): number {
  const base = collectChunkHashes(baseIndex);
  let size = 0;
  for (const chunk of listUniqueChunks(newIndex)) if (!base.has(toHex(chunk.hash))) size += chunk.compressedSize;
  return size;
}

/** Where each distinct chunk lands: every (file, offset) that references it, keyed by hex hash. */
export function mapChunkPlacements(index: ArchiveIndex): Map<string, ChunkPlacement[]> {
  const placements = new Map<string, ChunkPlacement[]>();
  for (const { file, parts } of walkFiles(index)) {
    let offset = 0;
    for (const chunk of file.chunks ?? []) {
      const key = toHex(chunk.hash);
      let list = placements.get(key);
      if (list === undefined) placements.set(key, (list = []));
      list.push({ file, parts, offset });
      offset += chunk.size;
    }
  }
  return placements;
}
