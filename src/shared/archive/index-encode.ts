import { ArchiveError } from './errors.ts';
import { BufferedByteWriter } from './byte-writer.ts';
import { encodeUtf8, utf8Length } from './bytes.ts';
import { CHUNK_HASH_SIZE, ENTRY_DIRECTORY, ENTRY_FILE, ENTRY_SYMLINK, MODE_MASK } from './constants.ts';
import { describeBadName, describeBadTarget, describeLongPath } from './paths.ts';
import { sortedEntries } from './tree.ts';
import type { ArchiveDirectory, ArchiveEntry, ArchiveIndex } from './types.ts';

function writeName(writer: BufferedByteWriter, text: string): void {
  const bytes = encodeUtf8(text);
  writer.writeVarint(bytes.length);
  writer.writeBytes(bytes);
}

function writeDirectoryBody(writer: BufferedByteWriter, directory: ArchiveDirectory, path: string, pathBytes: number): void {
  writer.writeVarint(directory.mode);
  const entries = sortedEntries(directory);
  writer.writeVarint(entries.length);
  for (const entry of entries) {
    const nameBytes = utf8Length(entry.name);
    if (path === '') writeEntry(writer, entry, entry.name, nameBytes);
    else writeEntry(writer, entry, `${path}/${entry.name}`, pathBytes + 1 + nameBytes);
  }
}

function writeEntry(writer: BufferedByteWriter, entry: ArchiveEntry, path: string, pathBytes: number): void {
  // Trees built by hand could bypass the tree functions: never write what the reader would refuse.
  const problem = describeBadName(entry.name) ?? describeLongPath(pathBytes) ?? (entry.kind === 'symlink' ? describeBadTarget(entry.target) : undefined);
  if (problem !== undefined) throw new ArchiveError('invalid_entry', problem, { path });
  if (!Number.isInteger(entry.mode) || entry.mode < 0 || entry.mode > MODE_MASK) {
    throw new ArchiveError('invalid_entry', `mode ${entry.mode} is not 0..3`, { path });
  }
  switch (entry.kind) {
    case 'directory':
      writer.writeVarint(ENTRY_DIRECTORY);
      writeName(writer, entry.name);
      writeDirectoryBody(writer, entry, path, pathBytes);
      return;
    case 'file': {
      writer.writeVarint(ENTRY_FILE);
      writeName(writer, entry.name);
      writer.writeVarint(entry.mode);
      writer.writeVarint(entry.size);
      const chunks = entry.chunks;
      if (chunks === undefined) throw new ArchiveError('invalid_entry', `'${path}' has no chunks: index it first`, { path });
      writer.writeVarint(chunks.length);
      for (const chunk of chunks) {
        if (chunk.hash.length !== CHUNK_HASH_SIZE) throw new ArchiveError('invalid_entry', 'chunk hash is not 32 bytes', { path });
        writer.writeBytes(chunk.hash);
        writer.writeVarint(chunk.size);
        writer.writeVarint(chunk.compressedSize);
      }
      return;
    }
    case 'symlink':
      writer.writeVarint(ENTRY_SYMLINK);
      writeName(writer, entry.name);
      writer.writeVarint(entry.mode);
      writeName(writer, entry.target);
      return;
  }
}

/** The index bytes in 1024-byte buffers: chunking, compression, then the root directory's body. */
export function encodeIndex(index: ArchiveIndex): Uint8Array[] {
  const writer = new BufferedByteWriter();
  writer.writeVarint(index.chunking);
  writer.writeVarint(index.compression);
  writeDirectoryBody(writer, index.root, '', 0);
  return writer.finish();
}
