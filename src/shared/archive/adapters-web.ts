import { decompress } from 'fzstd';
import { concatBytes } from './bytes.ts';
import type { ArchiveAdapters } from './adapters.ts';

async function digest(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));
}

/** WebCrypto and fzstd: what a browser or worker has. No compression for writing (spec §9 upload). */
export function createWebAdapters(): ArchiveAdapters {
  return {
    name: 'web',
    sha256: digest,
    createSha256() {
      // WebCrypto has no incremental digest: keep the parts (callers hash bounded data: chunks, index).
      const parts: Uint8Array[] = [];
      return {
        update(data) {
          parts.push(data.slice());
        },
        digest: () => digest(concatBytes(parts)),
      };
    },
    zstdDecompress(data, size) {
      // fzstd writes into the given buffer and never grows it, so a bomb cannot take more than `size`.
      const out = new Uint8Array(size);
      const result = decompress(data, out);
      if (result.length !== size || result.buffer !== out.buffer) {
        throw new Error(`zstd produced ${result.length} bytes, expected ${size}`);
      }
      return result;
    },
  };
}
