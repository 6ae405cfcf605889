import { ArchiveError } from './errors.ts';
import type { ArchiveAdapters } from './adapters.ts';

// No imports of bun: or node: here: the core (and the browser bundle) may include this file, and it
// only touches the runtime's globals when called on Bun.
type BunHasher = { update(data: Uint8Array): unknown; digest(): Uint8Array };
type BunGlobal = {
  CryptoHasher: new (algorithm: string) => BunHasher;
  SHA256: { hash(data: Uint8Array): Uint8Array };
  zstdCompressSync(data: Uint8Array, options: { level: number }): Uint8Array;
};
type ZlibModule = {
  zstdDecompressSync(data: Uint8Array, options: { maxOutputLength: number }): Uint8Array;
};
type ProcessGlobal = { getBuiltinModule?(name: string): unknown };

export function createBunAdapters(): ArchiveAdapters {
  const bun = (globalThis as unknown as { Bun?: BunGlobal }).Bun;
  if (bun === undefined) throw new ArchiveError('invalid_option', 'Bun adapters need the Bun runtime');
  const process = (globalThis as unknown as { process?: ProcessGlobal }).process;
  // node:zlib's maxOutputLength bounds the output; Bun.zstdDecompressSync trusts the frame and a
  // 256 KiB hostile chunk could expand to gigabytes.
  const zlib = process?.getBuiltinModule?.('node:zlib') as ZlibModule | undefined;
  if (zlib === undefined) throw new ArchiveError('invalid_option', 'node:zlib is not available');
  return {
    name: 'bun',
    sha256: (data) => bun.SHA256.hash(data),
    createSha256() {
      const hasher = new bun.CryptoHasher('sha256');
      return {
        update(data) {
          hasher.update(data);
        },
        digest: () => new Uint8Array(hasher.digest()),
      };
    },
    zstdCompress: (data, level) => bun.zstdCompressSync(data, { level }),
    zstdDecompress(data, size) {
      const out = zlib.zstdDecompressSync(data, { maxOutputLength: Math.max(size, 1) });
      return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    },
  };
}
