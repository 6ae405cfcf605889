import { ArchiveError, toArchiveError } from './errors.ts';
import { concatBytes, equalBytes, toHex } from './bytes.ts';
import { collectChunkHashes, listUniqueChunks, walkFiles } from './chunks.ts';
import { encodeHeader, encodePatchSection } from './format.ts';
import { takeCompressed } from './compressed-cache.ts';
import { encodeIndex } from './index-encode.ts';
import { indexWithResolvedOptions, isIndexed, type IndexInput } from './indexer.ts';
import { resolvePackOptions, type PackOptions, type ResolvedPackOptions } from './options.ts';
import { iterateSource } from './source.ts';
import { checkSymlinks } from './symlink-check.ts';
import type { ArchiveChunk, ArchiveFile, ArchiveIndex } from './types.ts';

export type PackResult = {
  index: ArchiveIndex;
  indexHash: Uint8Array;
  /** Bytes of the whole archive stream. */
  totalSize: number;
  /** Stored bytes of the chunks the base lacks (all chunks without a base). */
  patchSize: number;
  /** Distinct chunks the index references. */
  chunkCount: number;
  /** Distinct chunks present in the chunk data. */
  storedChunkCount: number;
};

export type PackedArchive = { stream: ReadableStream<Uint8Array>; done: Promise<PackResult> };

type Plan = { index: ArchiveIndex; stored: Set<string>; patchSize: number; chunkCount: number; storedOrdinals: number[] };

function planChunks(index: ArchiveIndex, base: ArchiveIndex | undefined): Plan {
  const baseHashes = base === undefined ? new Set<string>() : collectChunkHashes(base);
  const stored = new Set<string>();
  const storedOrdinals: number[] = [];
  let patchSize = 0;
  const unique = listUniqueChunks(index);
  unique.forEach((chunk, ordinal) => {
    const key = toHex(chunk.hash);
    if (baseHashes.has(key)) return;
    stored.add(key);
    storedOrdinals.push(ordinal);
    patchSize += chunk.compressedSize;
  });
  return { index, stored, patchSize, chunkCount: unique.length, storedOrdinals };
}

/**
 * Pass 2 for one file: re-reads the source, cuts it at the recorded sizes and checks each piece's hash,
 * so a file edited since pass 1 fails with source_changed instead of producing a corrupt archive.
 */
async function* emitFileChunks(
  file: ArchiveFile,
  path: string,
  pending: Set<string>,
  index: ArchiveIndex,
  options: ResolvedPackOptions,
): AsyncGenerator<Uint8Array> {
  const chunks = file.chunks ?? [];
  let lastNeeded = -1;
  chunks.forEach((chunk, i) => {
    if (pending.has(toHex(chunk.hash))) lastNeeded = i;
  });
  if (lastNeeded === -1) return;
  let current = 0;
  let parts: Uint8Array[] = [];
  let filled = 0;
  for await (const bytes of iterateSource(file.source, file.size, path)) {
    let offset = 0;
    while (offset < bytes.length && current <= lastNeeded) {
      const chunk = chunks[current]!;
      const count = Math.min(bytes.length - offset, chunk.size - filled);
      // Views: a FileSource hands over its pieces (web stream semantics) and never reuses them.
      parts.push(bytes.subarray(offset, offset + count));
      filled += count;
      offset += count;
      if (filled < chunk.size) continue;
      const chunkBytes = parts.length === 1 ? parts[0]! : concatBytes(parts, filled);
      parts = [];
      filled = 0;
      current++;
      const key = toHex(chunk.hash);
      if (!pending.has(key)) continue;
      if (!equalBytes(await options.adapters.sha256(chunkBytes), chunk.hash)) {
        throw new ArchiveError('source_changed', `'${path}' changed since it was indexed`, { path });
      }
      pending.delete(key);
      yield storeChunk(chunkBytes, chunk, path, index, options);
    }
    if (current > lastNeeded) return;
  }
}

function storeChunk(
  bytes: Uint8Array,
  chunk: ArchiveChunk,
  path: string,
  index: ArchiveIndex,
  options: ResolvedPackOptions,
): Uint8Array {
  if (chunk.compressedSize === chunk.size) return bytes;
  const compressed = takeCompressed(index, toHex(chunk.hash)) ?? options.adapters.zstdCompress?.(bytes, options.level);
  if (compressed === undefined || compressed.length !== chunk.compressedSize) {
    throw new ArchiveError('source_changed', `'${path}' does not compress as when it was indexed`, { path });
  }
  return compressed;
}

async function* emitChunkData(index: ArchiveIndex, plan: Plan, options: ResolvedPackOptions): AsyncGenerator<Uint8Array> {
  const loadChunk = options.loadChunk;
  if (loadChunk === undefined) {
    const pending = new Set(plan.stored);
    for (const { file, parts } of walkFiles(index)) yield* emitFileChunks(file, parts.join('/'), pending, index, options);
    return;
  }
  const unique = listUniqueChunks(index);
  for (const ordinal of plan.storedOrdinals) {
    const chunk = unique[ordinal]!;
    const stored = await loadChunk(chunk, ordinal);
    if (stored === undefined) throw new ArchiveError('missing_chunk', `chunk ${toHex(chunk.hash)} is not in the store`);
    if (stored.length !== chunk.compressedSize) {
      throw new ArchiveError('invalid_entry', `stored chunk ${toHex(chunk.hash)} is ${stored.length} bytes, not ${chunk.compressedSize}`);
    }
    yield stored;
  }
}

async function* generateArchive(
  input: IndexInput | ArchiveIndex,
  options: ResolvedPackOptions,
  result: { resolve(value: PackResult): void },
): AsyncGenerator<Uint8Array> {
  // Before pass 1 reads a byte: an archive the reader would refuse for its links is never made.
  checkSymlinks('root' in input ? input.root : input);
  const index = isIndexed(input) ? input : await indexWithResolvedOptions(input, options);
  if (isIndexed(input) && (input.chunking !== options.chunking || input.compression !== options.compression)) {
    // A ready index wins over the defaults: its chunks were made under its own settings.
    options = { ...options, chunking: input.chunking, compression: input.compression };
  }
  const plan = planChunks(index, options.base);
  const indexParts = encodeIndex(index);
  const indexSize = indexParts.reduce((sum, part) => sum + part.length, 0);
  const hasher = options.adapters.createSha256();
  for (const part of indexParts) hasher.update(part);
  const indexHash = await hasher.digest();
  let totalSize = 0;
  const emit = (bytes: Uint8Array): Uint8Array => {
    totalSize += bytes.length;
    return bytes;
  };
  yield emit(encodeHeader(options.base !== undefined, indexSize));
  for (const part of indexParts) yield emit(part);
  yield emit(indexHash);
  if (options.base !== undefined) {
    const baseHasher = options.adapters.createSha256();
    for (const part of encodeIndex(options.base)) baseHasher.update(part);
    yield emit(encodePatchSection(await baseHasher.digest(), plan.storedOrdinals));
  }
  const progress = { done: 0, total: plan.patchSize };
  for await (const stored of emitChunkData(index, plan, options)) {
    progress.done += stored.length;
    options.onProgress?.({ phase: 'data', ...progress });
    yield emit(stored);
  }
  result.resolve({
    index,
    indexHash,
    totalSize,
    patchSize: plan.patchSize,
    chunkCount: plan.chunkCount,
    storedChunkCount: plan.stored.size,
  });
}

/**
 * Packs a tree (or a ready index, skipping pass 1) into an archive stream. Pull-driven: nothing is read
 * until the stream is read, and memory holds the index plus a few chunks, never a whole file.
 */
export function packArchive(input: IndexInput | ArchiveIndex, options: PackOptions = {}): PackedArchive {
  let resolveDone!: (value: PackResult) => void;
  let rejectDone!: (error: unknown) => void;
  const done = new Promise<PackResult>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  // The caller may only await `done` after draining the stream; never leave a rejection unhandled.
  done.catch(() => undefined);
  let iterator: AsyncGenerator<Uint8Array> | undefined;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          iterator ??= generateArchive(input, resolvePackOptions(options), { resolve: resolveDone });
          const next = await iterator.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          const failure = toArchiveError(error, 'invalid_entry', 'packing failed');
          rejectDone(failure);
          controller.error(failure);
        }
      },
      async cancel(reason) {
        rejectDone(new ArchiveError('archive_ended', 'archive stream cancelled', { cause: reason }));
        await iterator?.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, done };
}
