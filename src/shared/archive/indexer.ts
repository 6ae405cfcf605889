import { toHex } from './bytes.ts';
import { createChunker } from './chunker.ts';
import { walkFiles } from './chunks.ts';
import { COMPRESSION_ZSTD } from './constants.ts';
import { createCompressedCache, rememberCompressed, type CompressedCache } from './compressed-cache.ts';
import { resolvePackOptions, type PackOptions, type ResolvedPackOptions } from './options.ts';
import { iterateSource } from './source.ts';
import { createDirectory, sortedEntries } from './tree.ts';
import type { ArchiveChunk, ArchiveDirectory, ArchiveFile, ArchiveIndex, ArchiveTree } from './types.ts';

export type IndexInput = ArchiveTree | ArchiveDirectory;

function rootOf(input: IndexInput): ArchiveDirectory {
  return 'kind' in input ? input : input.root;
}

/** A structural copy: indexing must not change the caller's tree, and sources are shared. */
function cloneDirectory(directory: ArchiveDirectory): ArchiveDirectory {
  const copy = createDirectory(directory.name, directory.mode);
  copy.size = directory.size;
  for (const entry of sortedEntries(directory)) {
    copy.entries.set(entry.name, entry.kind === 'directory' ? cloneDirectory(entry) : { ...entry });
  }
  return copy;
}

function baseChunksByHash(options: ResolvedPackOptions): Map<string, ArchiveChunk> {
  const known = new Map<string, ArchiveChunk>();
  const base = options.base;
  // A base record can stand in only when it was stored under the same compression rule.
  if (base === undefined || base.compression !== options.compression) return known;
  for (const { file } of walkFiles(base)) for (const chunk of file.chunks ?? []) known.set(toHex(chunk.hash), chunk);
  return known;
}

async function describeChunk(
  bytes: Uint8Array,
  options: ResolvedPackOptions,
  known: Map<string, ArchiveChunk>,
  cache: CompressedCache,
): Promise<ArchiveChunk> {
  const hash = await options.adapters.sha256(bytes);
  const key = toHex(hash);
  const seen = known.get(key);
  if (seen !== undefined && seen.size === bytes.length) return { hash, size: seen.size, compressedSize: seen.compressedSize };
  let compressedSize = bytes.length;
  if (options.compression === COMPRESSION_ZSTD) {
    const compressed = options.adapters.zstdCompress!(bytes, options.level);
    if (compressed.length < bytes.length) {
      compressedSize = compressed.length;
      rememberCompressed(cache, key, compressed);
    }
  }
  const chunk = { hash, size: bytes.length, compressedSize };
  known.set(key, chunk);
  return chunk;
}

async function indexFile(
  file: ArchiveFile,
  path: string,
  options: ResolvedPackOptions,
  known: Map<string, ArchiveChunk>,
  cache: CompressedCache,
  progress: { done: number; total: number },
): Promise<void> {
  const chunker = createChunker(options.chunking);
  const chunks: ArchiveChunk[] = [];
  for await (const bytes of iterateSource(file.source, file.size, path)) {
    for (const piece of chunker.push(bytes)) chunks.push(await describeChunk(piece, options, known, cache));
    progress.done += bytes.length;
    options.onProgress?.({ phase: 'index', ...progress });
  }
  const last = chunker.finish();
  if (last !== undefined) chunks.push(await describeChunk(last, options, known, cache));
  file.chunks = chunks;
}

/** Pass 1 alone: chunks and hashes every file (streaming) into an index, without producing bytes. */
export async function indexTree(input: IndexInput, options: PackOptions = {}): Promise<ArchiveIndex> {
  return indexWithResolvedOptions(input, resolvePackOptions(options));
}

export async function indexWithResolvedOptions(input: IndexInput, options: ResolvedPackOptions): Promise<ArchiveIndex> {
  const root = cloneDirectory(rootOf(input));
  const index: ArchiveIndex = { chunking: options.chunking, compression: options.compression, root };
  const known = baseChunksByHash(options);
  const cache = createCompressedCache(index);
  const progress = { done: 0, total: root.size };
  let offset = 0;
  for (const { file, parts } of walkFiles(index)) {
    file.offset = offset;
    offset += file.size;
    await indexFile(file, parts.join('/'), options, known, cache, progress);
  }
  return index;
}

/** True when every file already carries chunks made under these settings (pass 1 can be skipped). */
export function isIndexed(input: IndexInput | ArchiveIndex): input is ArchiveIndex {
  return 'chunking' in input && 'compression' in input;
}
