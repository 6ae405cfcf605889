import { ArchiveError } from './errors.ts';
import { compareBytes, decodeUtf8 } from './bytes.ts';
import {
  CHUNK_HASH_SIZE,
  CHUNKING_FIXED,
  COMPRESSION_NONE,
  ENTRY_DIRECTORY,
  ENTRY_FILE,
  ENTRY_SYMLINK,
  FIXED_CHUNK_SIZE,
  MAX_CHUNK_SIZE,
  MAX_DEPTH,
  MAX_DIRECTORY_ENTRIES,
  MIN_CHUNK_SIZE,
  MODE_MASK,
} from './constants.ts';
import { describeBadName, describeBadTarget, describeLongPath } from './paths.ts';
import { createDirectory } from './tree.ts';
import { decodeVarint } from './varint.ts';
import type { ArchiveChunk, ArchiveDirectory, ArchiveEntry, ArchiveIndex, ChunkingAlgorithm } from './types.ts';

/** Lower bound of an encoded entry (kind, name length, mode, one more field): guards allocations. */
const MIN_ENTRY_BYTES = 4;
const MIN_CHUNK_RECORD_BYTES = CHUNK_HASH_SIZE + 2;

class IndexCursor {
  offset = 0;
  fileOffset = 0;
  constructor(
    readonly bytes: Uint8Array,
    readonly chunking: ChunkingAlgorithm,
    readonly compressed: boolean,
  ) {}

  varint(): number {
    if (this.offset >= this.bytes.length) throw overrun();
    const { value, next } = decodeVarint(this.bytes, this.offset);
    this.offset = next;
    return value;
  }

  take(length: number): Uint8Array {
    if (length > this.bytes.length - this.offset) throw overrun();
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  remaining(): number {
    return this.bytes.length - this.offset;
  }
}

function overrun(): ArchiveError {
  return new ArchiveError('wrong_index_size', 'index entries run past the declared index size');
}

function invalid(message: string, path?: string): ArchiveError {
  return new ArchiveError('invalid_entry', message, path === undefined ? {} : { path });
}

function readText(cursor: IndexCursor, what: string, path: string): { text: string; bytes: Uint8Array } {
  const length = cursor.varint();
  const bytes = cursor.take(length);
  try {
    return { text: decodeUtf8(bytes), bytes };
  } catch {
    throw invalid(`${what} is not valid UTF-8`, path);
  }
}

function readMode(cursor: IndexCursor, path: string): number {
  const mode = cursor.varint();
  if ((mode & ~MODE_MASK) !== 0 || mode > MODE_MASK) throw invalid(`mode ${mode} is not 0..3`, path);
  return mode;
}

function checkChunkSize(cursor: IndexCursor, size: number, last: boolean, path: string): void {
  if (cursor.chunking === CHUNKING_FIXED) {
    if (size < 1 || size > FIXED_CHUNK_SIZE || (!last && size !== FIXED_CHUNK_SIZE)) {
      throw invalid(`fixed chunk of ${size} bytes`, path);
    }
  } else if (size < 1 || size > MAX_CHUNK_SIZE || (!last && size < MIN_CHUNK_SIZE)) {
    throw invalid(`content-defined chunk of ${size} bytes`, path);
  }
}

function readChunks(cursor: IndexCursor, fileSize: number, path: string): ArchiveChunk[] {
  const count = cursor.varint();
  if (count > cursor.remaining() / MIN_CHUNK_RECORD_BYTES) throw overrun();
  const chunks: ArchiveChunk[] = new Array(count);
  let total = 0;
  for (let i = 0; i < count; i++) {
    const hash = cursor.take(CHUNK_HASH_SIZE);
    const size = cursor.varint();
    const compressedSize = cursor.varint();
    checkChunkSize(cursor, size, i === count - 1, path);
    if (compressedSize < 1 || compressedSize > size || (!cursor.compressed && compressedSize !== size)) {
      throw invalid(`chunk stored in ${compressedSize} bytes for ${size}`, path);
    }
    total += size;
    chunks[i] = { hash, size, compressedSize };
  }
  if (total !== fileSize) throw invalid(`chunks hold ${total} bytes, file says ${fileSize}`, path);
  return chunks;
}

function readEntry(cursor: IndexCursor, parentPath: string, parentBytes: number, depth: number): { entry: ArchiveEntry; nameBytes: Uint8Array } {
  const kind = cursor.varint();
  const name = readText(cursor, 'name', parentPath);
  const path = parentPath === '' ? name.text : `${parentPath}/${name.text}`;
  const pathBytes = parentPath === '' ? name.bytes.length : parentBytes + 1 + name.bytes.length;
  const problem = describeBadName(name.text) ?? describeLongPath(pathBytes);
  if (problem !== undefined) throw invalid(problem, path);
  const mode = readMode(cursor, path);
  switch (kind) {
    case ENTRY_DIRECTORY: {
      const directory = createDirectory(name.text, mode);
      readDirectoryEntries(cursor, directory, path, pathBytes, depth + 1);
      return { entry: directory, nameBytes: name.bytes };
    }
    case ENTRY_FILE: {
      const size = cursor.varint();
      const chunks = readChunks(cursor, size, path);
      const entry: ArchiveEntry = { kind: 'file', name: name.text, size, mode, chunks, offset: cursor.fileOffset };
      cursor.fileOffset += size;
      return { entry, nameBytes: name.bytes };
    }
    case ENTRY_SYMLINK: {
      const target = readText(cursor, 'symlink target', path).text;
      const badTarget = describeBadTarget(target);
      if (badTarget !== undefined) throw invalid(badTarget, path);
      return { entry: { kind: 'symlink', name: name.text, size: 0, mode, target }, nameBytes: name.bytes };
    }
    default:
      throw invalid(`unknown entry kind ${kind}`, path);
  }
}

function readDirectoryEntries(cursor: IndexCursor, directory: ArchiveDirectory, path: string, pathBytes: number, depth: number): void {
  if (depth > MAX_DEPTH) throw invalid(`directories nested deeper than ${MAX_DEPTH}`, path);
  const count = cursor.varint();
  if (count >= MAX_DIRECTORY_ENTRIES) {
    throw new ArchiveError('too_many_entries', `directory declares ${count} entries`, { path });
  }
  if (count > cursor.remaining() / MIN_ENTRY_BYTES) throw overrun();
  let previous: Uint8Array | undefined;
  for (let i = 0; i < count; i++) {
    const { entry, nameBytes } = readEntry(cursor, path, pathBytes, depth);
    // Strictly increasing bytes: sorted as the spec says, and no duplicate names.
    if (previous !== undefined && compareBytes(previous, nameBytes) >= 0) {
      throw invalid(`'${entry.name}' is out of order or duplicated`, path);
    }
    previous = nameBytes;
    directory.entries.set(entry.name, entry);
    directory.size += entry.size;
  }
}

/** Parses and validates index bytes; consumed bytes must equal the declared size (wrong_index_size). */
export function decodeIndex(bytes: Uint8Array): ArchiveIndex {
  const probe = new IndexCursor(bytes, 0, false);
  const chunking = probe.varint();
  const compression = probe.varint();
  if (chunking !== 0 && chunking !== 1) throw invalid(`unknown chunking algorithm ${chunking}`);
  if (compression !== 0 && compression !== 1) throw invalid(`unknown compression ${compression}`);
  const cursor = new IndexCursor(bytes, chunking, compression !== COMPRESSION_NONE);
  cursor.offset = probe.offset;
  const root = createDirectory('', readMode(cursor, ''));
  readDirectoryEntries(cursor, root, '', 0, 0);
  if (cursor.remaining() !== 0) {
    throw new ArchiveError('wrong_index_size', `index ends ${cursor.remaining()} bytes before its declared size`);
  }
  return { chunking, compression, root };
}
