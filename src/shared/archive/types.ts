/**
 * Anything with a size and a byte stream: a browser File/Blob, Bun.file, a generated source. As with
 * any web stream, a piece once enqueued belongs to the reader: the source must not reuse its buffer.
 */
export type FileSource = { size: number; stream(): ReadableStream<Uint8Array> };

export type ChunkingAlgorithm = 0 | 1;
export type CompressionAlgorithm = 0 | 1;

export type ArchiveChunk = { hash: Uint8Array; size: number; compressedSize: number };

export type ArchiveFile = {
  kind: 'file';
  name: string;
  size: number;
  mode: number;
  source?: FileSource;
  chunks?: ArchiveChunk[];
  /** Position of the file's content in the concatenation of all files in index order. */
  offset?: number;
};

export type ArchiveSymlink = { kind: 'symlink'; name: string; size: 0; mode: number; target: string };

export type ArchiveDirectory = {
  kind: 'directory';
  name: string;
  /** Total size of every file below. */
  size: number;
  mode: number;
  entries: Map<string, ArchiveEntry>;
};

export type ArchiveEntry = ArchiveDirectory | ArchiveFile | ArchiveSymlink;

export type ArchiveTree = { root: ArchiveDirectory; entrypoint?: string[] };

/** A tree whose files all carry their chunks: what the archive's index describes. */
export type ArchiveIndex = {
  chunking: ChunkingAlgorithm;
  compression: CompressionAlgorithm;
  root: ArchiveDirectory;
};

export type PathInput = string | readonly string[];
