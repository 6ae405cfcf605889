import { createBunAdapters, toHex, type ArchiveEntry, type ArchiveFile, type ArchiveIndex, type CompressionAlgorithm } from '../../shared/archive/index.ts';
import type { Deps } from '../deps.ts';
import { chunkKey } from '../domains/packages/blobs/blob-keys.ts';

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

const adapters = createBunAdapters();

/**
 * Bytes start..end (end exclusive) of a file, read chunk by chunk from the chunk store as the client
 * pulls: a raw chunk is read only over the needed range, a zstd chunk is read whole and decompressed
 * (bounded by its declared size). One chunk in memory at a time.
 */
export function streamFileRange(deps: Pick<Deps, 'storage'>, compression: CompressionAlgorithm, file: ArchiveFile, start: number, end: number): ReadableStream<Uint8Array> {
  const chunks = file.chunks ?? [];
  let chunkIndex = 0;
  let chunkStart = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (chunkIndex < chunks.length) {
        const chunk = chunks[chunkIndex++]!;
        const from = Math.max(start, chunkStart) - chunkStart;
        const to = Math.min(end, chunkStart + chunk.size) - chunkStart;
        chunkStart += chunk.size;
        if (to <= from) {
          if (chunkStart >= end) break;
          continue;
        }
        const key = chunkKey(compression, toHex(chunk.hash), chunk.compressedSize);
        let bytes: Uint8Array;
        if (chunk.compressedSize < chunk.size) {
          const raw = await adapters.zstdDecompress(await deps.storage.read(key), chunk.size);
          if (raw.length !== chunk.size) throw new Error(`chunk ${toHex(chunk.hash)} decompressed to ${raw.length} bytes, not ${chunk.size}`);
          bytes = raw.subarray(from, to);
        } else {
          bytes = await deps.storage.read(key, { start: from, end: to - 1 });
          if (bytes.length !== to - from) throw new Error(`chunk ${toHex(chunk.hash)} is shorter than its index says`);
        }
        controller.enqueue(bytes);
        return;
      }
      controller.close();
    },
  });
}
