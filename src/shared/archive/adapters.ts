import { createBunAdapters } from './adapters-bun.ts';
import { createWebAdapters } from './adapters-web.ts';

export type MaybePromise<T> = T | Promise<T>;

export type Sha256Hasher = { update(data: Uint8Array): void; digest(): MaybePromise<Uint8Array> };

/** Platform pieces the core needs; everything else in the library is web-standard JavaScript. */
export type ArchiveAdapters = {
  name: string;
  /** One-shot digest; chunks are at most MAX_CHUNK_SIZE, so a one-shot web digest is fine. */
  sha256(data: Uint8Array): MaybePromise<Uint8Array>;
  createSha256(): Sha256Hasher;
  /** Absent where only decompression is available (the browser writes compression 0). */
  zstdCompress?: (data: Uint8Array, level: number) => Uint8Array;
  /** Must never produce more than `size` bytes, whatever the input claims (decompression bombs). */
  zstdDecompress(data: Uint8Array, size: number): MaybePromise<Uint8Array>;
};

/** Bun's native hashing and zstd when running on Bun, else WebCrypto and zstddec (libzstd in wasm). */
export function detectAdapters(): ArchiveAdapters {
  return 'Bun' in globalThis ? createBunAdapters() : createWebAdapters();
}

