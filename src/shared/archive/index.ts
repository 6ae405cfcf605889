export { ArchiveError, archiveErrorCodes, isArchiveError, type ArchiveErrorCode } from './errors.ts';
export * from './constants.ts';
export type {
  ArchiveChunk,
  ArchiveDirectory,
  ArchiveEntry,
  ArchiveFile,
  ArchiveIndex,
  ArchiveSymlink,
  ArchiveTree,
  ChunkingAlgorithm,
  CompressionAlgorithm,
  FileSource,
  PathInput,
} from './types.ts';
export { compareNames, compareBytes, equalBytes, toHex, fromHex, concatBytes, utf8Length } from './bytes.ts';
export { encodeVarint, decodeVarint, MAX_VARINT } from './varint.ts';
export { splitPath, joinPath, describeBadName, describeLongPath, describeBadTarget, shownPath, hasBidiControl, bidiControlClass } from './paths.ts';
export { checkSymlinks } from './symlink-check.ts';
export {
  createTree,
  createDirectory,
  addFile,
  addFiles,
  addDirectory,
  addSymlink,
  findEntry,
  getEntry,
  sortedEntries,
  walkEntries,
  type AddOptions,
  type FolderFile,
} from './tree.ts';
export {
  moveEntry,
  renameEntry,
  removeEntry,
  explodeDirectory,
  setEntrypoint,
  setExecutable,
  toggleExecutable,
  type MoveResult,
} from './tree-edit.ts';
export { createChunker, chunkBytes, GEAR_TABLE, BOUNDARY_MASK, type Chunker } from './chunker.ts';
export { detectAdapters, type ArchiveAdapters, type Sha256Hasher, type MaybePromise } from './adapters.ts';
export { createBunAdapters } from './adapters-bun.ts';
export { createWebAdapters } from './adapters-web.ts';
export { encodeIndex } from './index-encode.ts';
export { decodeIndex } from './index-decode.ts';
export { encodeHeader, encodePatchSection } from './format.ts';
export {
  listUniqueChunks,
  collectChunkHashes,
  computePatchSize,
  mapChunkPlacements,
  walkFiles,
  type ChunkPlacement,
} from './chunks.ts';
export { indexTree, type IndexInput } from './indexer.ts';
export { type PackOptions, type PackProgress, type LoadChunk } from './options.ts';
export { packArchive, type PackedArchive, type PackResult } from './writer.ts';
export { readArchive, readArchiveFromUrl, type ArchiveReadResult, type ReadChunk, type ReadOptions } from './reader.ts';
export { readAllFiles } from './files.ts';
export { bytesSource, generatedSource } from './sources.ts';
export { archiveSize, type ArchiveSize } from './size.ts';
export { archiveDataStart, locateChunks, planRuns, DEFAULT_RUN_OPTIONS, type LocatedChunk, type PlannedChunk, type Run } from './remote/run-plan.ts';
export { readRemoteIndex, readRemoteIndexHeader, remoteIndexFrom, type RemoteIndex, type RemoteIndexHeader } from './remote/index-read.ts';
export { fetchIndexFile } from './remote/index-file.ts';
export { fetchRun, fetchRuns, decodeChunk, type RunOptions } from './remote/run-fetch.ts';
export { type RemoteFetch, type RemoteStats, type RemoteOptions } from './remote/request.ts';
