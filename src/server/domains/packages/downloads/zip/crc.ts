import { crc32 } from 'node:zlib';
import { walkEntries, type ArchiveIndex, type CompressionAlgorithm } from '../../../../../shared/archive/index.ts';
import type { Deps } from '../../../../deps.ts';
import { chunkRefOf, rawChunkLoader } from './chunks.ts';
import { buildVirtualFile, readVirtualRange, type Segment } from './segments.ts';

/**
 * CRC-32 of every file of a package, in index order: the ZIP's headers need them before the first
 * file byte, so they are computed once (one pass over the package's bytes) and kept in storage at
 * `packages/{id}/zip-crc`. The blob is derived data: any process may compute and store it, concurrent
 * writers store the same bytes (puts are atomic), and a blob that does not match the index (wrong
 * magic, hash or count) is simply computed again.
 *
 * Layout: "CZC1", the 32-byte index hash, a u32 count, then count × u32 (big-endian).
 */
const MAGIC = new TextEncoder().encode('CZC1');

export function zipCrcKey(packageId: string): string {
  return `packages/${packageId}/zip-crc`;
}

export function filesOf(index: ArchiveIndex) {
  const files = [];
  for (const { entry } of walkEntries(index.root)) if (entry.kind === 'file') files.push(entry);
  return files;
}

function decode(bytes: Uint8Array, indexHash: Uint8Array, count: number): Uint32Array | undefined {
  if (bytes.byteLength !== 40 + count * 4) return undefined;
  for (let i = 0; i < 4; i++) if (bytes[i] !== MAGIC[i]) return undefined;
  for (let i = 0; i < 32; i++) if (bytes[4 + i] !== indexHash[i]) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(36) !== count) return undefined;
  const crcs = new Uint32Array(count);
  for (let i = 0; i < count; i++) crcs[i] = view.getUint32(40 + i * 4);
  return crcs;
}

function encode(crcs: Uint32Array, indexHash: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(40 + crcs.length * 4);
  bytes.set(MAGIC, 0);
  bytes.set(indexHash, 4);
  const view = new DataView(bytes.buffer);
  view.setUint32(36, crcs.length);
  crcs.forEach((crc, i) => view.setUint32(40 + i * 4, crc));
  return bytes;
}

/** Streams every file's raw bytes once, in order, with the chunk store's read-ahead. */
async function computeCrcs(deps: Pick<Deps, 'db' | 'storage'>, packageId: string, index: ArchiveIndex): Promise<Uint32Array> {
  const files = filesOf(index);
  const crcs = new Uint32Array(files.length);
  const segments: Segment[] = files.flatMap((file) => (file.chunks ?? []).map((chunk) => ({ chunk: chunkRefOf(chunk) })));
  const all = buildVirtualFile(segments, (chunk) => chunk.size);
  const reader = readVirtualRange(all, 0, all.size, rawChunkLoader(deps, packageId, index.compression as CompressionAlgorithm)).getReader();
  let fileIndex = 0;
  let leftInFile = files[0]?.size ?? 0;
  let crc = 0;
  const finishEmptyFiles = () => {
    while (fileIndex < files.length && leftInFile === 0) {
      crcs[fileIndex] = crc >>> 0;
      fileIndex++;
      crc = 0;
      leftInFile = files[fileIndex]?.size ?? 0;
    }
  };
  finishEmptyFiles();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let bytes = value;
    while (bytes.byteLength > 0) {
      if (fileIndex >= files.length) throw new Error('package data runs past its last file');
      const take = Math.min(leftInFile, bytes.byteLength);
      crc = crc32(bytes.subarray(0, take), crc);
      leftInFile -= take;
      bytes = bytes.subarray(take);
      finishEmptyFiles();
    }
  }
  if (fileIndex !== files.length) throw new Error('package data ended before its last file');
  return crcs;
}

/** In-process sharing of a computation under way; correctness never depends on it. */
const running = new Map<string, Promise<Uint32Array>>();

/** The stored CRC-32s when they are there and match the index; undefined otherwise (nothing computed). */
export async function readStoredZipCrcs(deps: Pick<Deps, 'storage'>, packageId: string, index: ArchiveIndex, indexHash: Uint8Array): Promise<Uint32Array | undefined> {
  const key = zipCrcKey(packageId);
  if (!(await deps.storage.stat(key))) return undefined;
  const bytes = await deps.storage.read(key);
  return decode(bytes, indexHash, filesOf(index).length);
}

export async function storeZipCrcs(deps: Pick<Deps, 'storage'>, packageId: string, crcs: Uint32Array, indexHash: Uint8Array): Promise<void> {
  await deps.storage.put(zipCrcKey(packageId), encode(crcs, indexHash));
}

export async function loadZipCrcs(deps: Pick<Deps, 'db' | 'storage'>, packageId: string, index: ArchiveIndex, indexHash: Uint8Array): Promise<Uint32Array> {
  const stored = await readStoredZipCrcs(deps, packageId, index, indexHash);
  if (stored) return stored;
  let computing = running.get(packageId);
  if (!computing) {
    computing = (async () => {
      const crcs = await computeCrcs(deps, packageId, index);
      await storeZipCrcs(deps, packageId, crcs, indexHash);
      return crcs;
    })().finally(() => running.delete(packageId));
    running.set(packageId, computing);
  }
  return computing;
}
