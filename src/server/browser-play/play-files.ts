import { toHex, type ArchiveEntry, type ArchiveFile, type ArchiveIndex, type CompressionAlgorithm } from '../../shared/archive/index.ts';
import type { Deps } from '../deps.ts';
import { listedChunkLocator } from '../domains/packages/chunks/chunk-locations.ts';
import { openChunkReader, type ChunkRef } from '../domains/packages/chunks/chunk-reader.ts';

export type PlayLookup =
  | { kind: 'file'; file: ArchiveFile; path: string }
  /** A directory asked for without its trailing slash: relative links inside need the slash. */
  | { kind: 'directory' }
  | { kind: 'missing' };

const maxSymlinkHops = 8;

/**
 * The file a request path names inside the package: a directory serves its index.html; symlinks are
 * followed inside the package only (absolute targets and targets above the root are missing).
 */
export function lookUpPlayFile(index: ArchiveIndex, parts: string[], endsWithSlash: boolean): PlayLookup {
  const found = resolveParts(index, parts, 0);
  if (!found) return { kind: 'missing' };
  if (found.entry.kind === 'directory') {
    if (!endsWithSlash && parts.length > 0) return { kind: 'directory' };
    const inner = resolveParts(index, [...found.parts, 'index.html'], 0);
    return inner?.entry.kind === 'file' ? { kind: 'file', file: inner.entry, path: inner.parts.join('/') } : { kind: 'missing' };
  }
  if (found.entry.kind !== 'file' || endsWithSlash) return { kind: 'missing' };
  return { kind: 'file', file: found.entry, path: found.parts.join('/') };
}

function resolveParts(index: ArchiveIndex, parts: string[], hops: number): { entry: ArchiveEntry; parts: string[] } | undefined {
  let entry: ArchiveEntry = index.root;
  for (let i = 0; i < parts.length; i++) {
    if (entry.kind !== 'directory') return undefined;
    const next: ArchiveEntry | undefined = entry.entries.get(parts[i]!);
    if (!next) return undefined;
    if (next.kind === 'symlink') {
      if (hops >= maxSymlinkHops || next.target.startsWith('/')) return undefined;
      const target = normaliseParts([...parts.slice(0, i), ...next.target.split('/')]);
      if (!target) return undefined;
      return resolveParts(index, [...target, ...parts.slice(i + 1)], hops + 1);
    }
    entry = next;
  }
  return { entry, parts };
}

function normaliseParts(parts: string[]): string[] | undefined {
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(part);
  }
  return out;
}

/**
 * Bytes start..end (end exclusive) of a file, chunk by chunk as the client pulls (one chunk in memory at
 * a time). The chunks the range touches are located with one query (the file's, not the whole
 * package's: a game's first request should not load thousands of locations) and read through the
 * shared chunk reader (packages/chunks/chunk-reader.ts).
 */
export function streamFileRange(deps: Pick<Deps, 'db' | 'storage'>, compression: CompressionAlgorithm, file: ArchiveFile, start: number, end: number): ReadableStream<Uint8Array> {
  const needed: { ref: ChunkRef; from: number; to: number }[] = [];
  let chunkStart = 0;
  for (const chunk of file.chunks ?? []) {
    const from = Math.max(start, chunkStart) - chunkStart;
    const to = Math.min(end, chunkStart + chunk.size) - chunkStart;
    if (to > from) needed.push({ ref: { hash: toHex(chunk.hash), size: chunk.size, compressedSize: chunk.compressedSize }, from, to });
    chunkStart += chunk.size;
    if (chunkStart >= end) break;
  }
  const reader = openChunkReader(deps.storage, compression, listedChunkLocator(deps, compression, needed.map((item) => item.ref)));
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const item = needed[next++];
      if (!item) {
        reader.release();
        controller.close();
        return;
      }
      try {
        const bytes = await reader.raw(item.ref);
        controller.enqueue(item.from === 0 && item.to === bytes.byteLength ? bytes : bytes.subarray(item.from, item.to));
      } catch (error) {
        reader.release();
        throw error;
      }
    },
    cancel() {
      reader.release();
    },
  });
}
