import {
  COMPRESSION_NONE,
  addFile,
  archiveSize,
  createDirectory,
  createTree,
  indexTree,
  sortedEntries,
  walkEntries,
  type ArchiveChunk,
  type ArchiveDirectory,
  type ArchiveFile,
  type ArchiveIndex,
  type ArchiveTree,
  type ChunkingAlgorithm,
  type CompressionAlgorithm,
  type FileSource,
} from '../../../shared/archive/index.ts';
import { UPLOAD_PACK_OPTIONS } from '../../upload/upload-constants.ts';

/**
 * The settings the upload packs with (spec §9: fixed-size chunking, no compression): indexing with the
 * same ones makes the sizes shown here the bytes the upload sends.
 */
export function uploadPackSettings(): { chunking: ChunkingAlgorithm; compression: CompressionAlgorithm } {
  return { ...UPLOAD_PACK_OPTIONS };
}

export type IndexProgress = { done: number; total: number };

/** Longest stretch of chunking work before giving the page a turn (keeps input responsive). */
const SLICE_MS = 12;

const yieldToPage = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * The source read in slices: after every SLICE_MS of work (reading, chunking, hashing) the page gets a
 * turn. Indexing runs on the page's thread (Bun's HTML bundler does not bundle `new Worker(new
 * URL(...))`); with fixed-size chunking and WebCrypto's asynchronous hashing, little of it is busy.
 */
function slicedSource(source: FileSource, signal: AbortSignal, onBytes: (count: number) => void): FileSource {
  return {
    size: source.size,
    stream() {
      let started = performance.now();
      return source.stream().pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          async transform(piece, controller) {
            signal.throwIfAborted();
            if (performance.now() - started > SLICE_MS) {
              await yieldToPage();
              signal.throwIfAborted();
              started = performance.now();
            }
            onBytes(piece.length);
            controller.enqueue(piece);
          },
        }),
      );
    },
  };
}

/** Chunks already computed per source and chunking: tree edits (moves, renames, modes) re-index nothing. */
const chunkCache = new WeakMap<FileSource, Map<ChunkingAlgorithm, ArchiveChunk[]>>();

async function chunksOf(file: ArchiveFile, chunking: ChunkingAlgorithm, signal: AbortSignal, onBytes: (count: number) => void): Promise<ArchiveChunk[]> {
  const source = file.source;
  if (!source) return file.chunks ?? [];
  const cached = chunkCache.get(source)?.get(chunking);
  if (cached) return cached;
  const single = createTree();
  addFile(single, 'file', slicedSource(source, signal, onBytes));
  const index = await indexTree(single, { chunking, compression: COMPRESSION_NONE });
  const chunks = (index.root.entries.get('file') as ArchiveFile).chunks ?? [];
  let byChunking = chunkCache.get(source);
  if (!byChunking) chunkCache.set(source, (byChunking = new Map()));
  byChunking.set(chunking, chunks);
  return chunks;
}

function cloneStructure(directory: ArchiveDirectory, files: Map<ArchiveFile, ArchiveFile>): ArchiveDirectory {
  const copy = createDirectory(directory.name, directory.mode);
  copy.size = directory.size;
  for (const entry of sortedEntries(directory)) {
    if (entry.kind === 'directory') copy.entries.set(entry.name, cloneStructure(entry, files));
    else if (entry.kind === 'file') {
      const file = { ...entry };
      files.set(entry, file);
      copy.entries.set(entry.name, file);
    } else copy.entries.set(entry.name, { ...entry });
  }
  return copy;
}

/**
 * The index of the tree as the upload would write it (what indexTree gives), built file by file so
 * each File is chunked once per dialog. Aborting stops at the next slice with the signal's reason.
 */
export async function indexPackageTree(
  tree: ArchiveTree,
  options: { chunking: ChunkingAlgorithm; signal: AbortSignal; onProgress?: (progress: IndexProgress) => void },
): Promise<ArchiveIndex> {
  const files = new Map<ArchiveFile, ArchiveFile>();
  const root = cloneStructure(tree.root, files);
  const progress: IndexProgress = { done: 0, total: 0 };
  for (const original of files.keys()) {
    if (original.source && chunkCache.get(original.source)?.has(options.chunking)) continue;
    progress.total += original.size;
  }
  const onBytes = (count: number) => {
    progress.done += count;
    options.onProgress?.({ ...progress });
  };
  options.onProgress?.({ ...progress });
  for (const original of files.keys()) files.get(original)!.chunks = await chunksOf(original, options.chunking, options.signal, onBytes);
  const index: ArchiveIndex = { chunking: options.chunking, compression: COMPRESSION_NONE, root };
  let offset = 0;
  for (const { entry } of walkEntries(root)) {
    if (entry.kind !== 'file') continue;
    entry.offset = offset;
    offset += entry.size;
  }
  return index;
}

export type UploadEstimate = {
  /** Bytes of the whole archive (header, index, its hash, every distinct chunk). */
  fullSize: number;
  /** Bytes the upload sends: the full archive, or the patch archive when there is a base. */
  uploadSize: number;
  /** Chunk bytes the base lacks (computePatchSize); all chunk bytes without a base. */
  chunkDataSize: number;
};

/** The archive's exact size (archiveSize), whole and as a patch of `base` when there is one. */
export function estimateUpload(index: ArchiveIndex, base?: ArchiveIndex | null): UploadEstimate {
  const full = archiveSize(index);
  if (!base) return { fullSize: full.totalSize, uploadSize: full.totalSize, chunkDataSize: full.patchSize };
  const patch = archiveSize(index, { base });
  return { fullSize: full.totalSize, uploadSize: patch.totalSize, chunkDataSize: patch.patchSize };
}

/** Files and their total size, for the summary line. */
export function countFiles(tree: ArchiveTree): { count: number; size: number } {
  let count = 0;
  for (const { entry } of walkEntries(tree.root)) if (entry.kind === 'file') count++;
  return { count, size: tree.root.size };
}
