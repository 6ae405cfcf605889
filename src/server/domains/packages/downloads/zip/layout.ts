import { crc32 } from 'node:zlib';
import { encodeHeader, fromHex, listUniqueChunks, walkEntries, type ArchiveIndex } from '../../../../../shared/archive/index.ts';
import { chunkRefOf } from './chunks.ts';
import {
  centralHeaderSize,
  encodeCentralHeader,
  encodeEnd,
  encodeLocalHeader,
  localHeaderSize,
  MODE_DIRECTORY,
  MODE_EXECUTABLE,
  MODE_FILE,
  MODE_SYMLINK,
  type ZipEntry,
} from './headers.ts';
import { buildVirtualFile, type Segment, type VirtualFile } from './segments.ts';
import { checkZipIndex, zipEntryName, zipRefusal } from './zip-rules.ts';

const encoder = new TextEncoder();
const EXECUTABLE_BIT = 1;

/**
 * The ZIP of a package: every directory, file and symlink of the index in index order (UTF-8 byte
 * order, parents before children), names relative to the package root. Files hold their raw bytes
 * (chunks, decompressed), symlinks their target (Info-ZIP convention), directories nothing. Same
 * index + same CRCs → same bytes, on any process, any day. An index the ZIP must not or cannot hold
 * (a symlink leading out of the package, a name too long: zip-rules.ts) throws an ArchiveError.
 */
export function zipLayout(index: ArchiveIndex, crcs: Uint32Array): VirtualFile {
  try {
    checkZipIndex(index);
    return layOut(index, crcs);
  } catch (error) {
    throw zipRefusal(error);
  }
}

function layOut(index: ArchiveIndex, crcs: Uint32Array): VirtualFile {
  const segments: Segment[] = [];
  const entries: ZipEntry[] = [];
  let offset = 0;
  let fileIndex = 0;
  for (const { entry, parts } of walkEntries(index.root)) {
    const path = parts.join('/');
    if (entry.kind === 'directory') {
      const zipEntry: ZipEntry = { name: zipEntryName(entry.name, path, true), size: 0, crc: 0, mode: MODE_DIRECTORY, offset };
      entries.push(zipEntry);
      segments.push({ bytes: encodeLocalHeader(zipEntry) });
      offset += localHeaderSize(zipEntry);
    } else if (entry.kind === 'symlink') {
      const target = encoder.encode(entry.target);
      const zipEntry: ZipEntry = { name: zipEntryName(entry.name, path, false), size: target.byteLength, crc: crc32(target) >>> 0, mode: MODE_SYMLINK, offset };
      entries.push(zipEntry);
      segments.push({ bytes: encodeLocalHeader(zipEntry) }, { bytes: target });
      offset += localHeaderSize(zipEntry) + target.byteLength;
    } else {
      const crc = crcs[fileIndex++];
      if (crc === undefined) throw new Error('fewer CRC-32 values than files');
      const mode = entry.mode & EXECUTABLE_BIT ? MODE_EXECUTABLE : MODE_FILE;
      const zipEntry: ZipEntry = { name: zipEntryName(entry.name, path, false), size: entry.size, crc, mode, offset };
      entries.push(zipEntry);
      segments.push({ bytes: encodeLocalHeader(zipEntry) });
      for (const chunk of entry.chunks ?? []) segments.push({ chunk: chunkRefOf(chunk) });
      offset += localHeaderSize(zipEntry) + entry.size;
    }
  }
  const directoryOffset = offset;
  const directory = new Uint8Array(entries.reduce((sum, entry) => sum + centralHeaderSize(entry), 0));
  let position = 0;
  for (const entry of entries) {
    const header = encodeCentralHeader(entry);
    directory.set(header, position);
    position += header.byteLength;
  }
  if (directory.byteLength > 0) segments.push({ bytes: directory });
  segments.push({ bytes: encodeEnd(entries.length, directoryOffset, directory.byteLength) });
  return buildVirtualFile(segments, (chunk) => chunk.size);
}

/**
 * The package's archive (docs/archive-format.md) laid out like packArchive(index, { loadChunk })
 * writes it: header, the stored index bytes, their hash, then each distinct chunk's stored bytes
 * in first-reference order. Laid out rather than streamed so Range requests can skip ahead.
 */
export function archiveLayout(index: ArchiveIndex, indexBytes: Uint8Array, indexHashHex: string): VirtualFile {
  const segments: Segment[] = [{ bytes: encodeHeader(false, indexBytes.byteLength) }, { bytes: indexBytes }, { bytes: fromHex(indexHashHex) }];
  for (const chunk of listUniqueChunks(index)) segments.push({ chunk: chunkRefOf(chunk) });
  return buildVirtualFile(segments, (chunk) => chunk.compressedSize);
}
