import pgliteWasmPath from '@electric-sql/pglite/pglite.wasm' with { type: 'file' };
import initdbWasmPath from '@electric-sql/pglite/initdb.wasm' with { type: 'file' };
import fsBundlePath from '@electric-sql/pglite/pglite.data' with { type: 'file' };

type PgliteAssets = { pgliteWasmModule: WebAssembly.Module; initdbWasmModule: WebAssembly.Module; fsBundle: Blob };

let assets: Promise<PgliteAssets> | undefined;

/**
 * PGlite finds its wasm and data files next to its own module, which does not exist inside a
 * compiled binary (/$bunfs); importing them as files makes Bun embed them, and works from source too.
 */
export function loadPgliteAssets(): Promise<PgliteAssets> {
  assets ??= (async () => {
    const [pgliteWasm, initdbWasm] = await Promise.all([
      Bun.file(pgliteWasmPath).arrayBuffer(),
      Bun.file(initdbWasmPath).arrayBuffer(),
    ]);
    const [pgliteWasmModule, initdbWasmModule] = await Promise.all([
      WebAssembly.compile(pgliteWasm),
      WebAssembly.compile(initdbWasm),
    ]);
    return { pgliteWasmModule, initdbWasmModule, fsBundle: Bun.file(fsBundlePath) };
  })();
  return assets;
}
