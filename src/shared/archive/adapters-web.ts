import { ZSTDDecoder } from 'zstddec';
import { concatBytes } from './bytes.ts';
import type { ArchiveAdapters } from './adapters.ts';

async function digest(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));
}

/**
 * zstddec is libzstd's own decoder compiled to wasm: a pure-JS decoder (fzstd) looped forever on a
 * corrupt frame the fuzzer found, libzstd rejects it at once. Instantiated once, on first use.
 */
let decoder: Promise<ZSTDDecoder> | undefined;
function zstdDecoder(): Promise<ZSTDDecoder> {
  decoder ??= (async () => {
    const instance = new ZSTDDecoder();
    await instance.init();
    return instance;
  })();
  return decoder;
}

/** WebCrypto and zstddec: what a browser or worker has. No compression for writing (spec §9 upload). */
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
    async zstdDecompress(data, size) {
      // libzstd decodes into a buffer of exactly `size`: a bomb cannot take more, and a frame that does
      // not fill it exactly comes back short or garbled, which the size and hash checks refuse.
      const result = (await zstdDecoder()).decode(data, size);
      if (result.length !== size) throw new Error(`zstd produced ${result.length} bytes, expected ${size}`);
      return result;
    },
  };
}
