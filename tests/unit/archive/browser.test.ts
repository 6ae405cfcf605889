import { expect, test } from 'bun:test';
import {
  addFile,
  addSymlink,
  bytesSource,
  createTree,
  createWebAdapters,
  createBunAdapters,
  equalBytes,
  packArchive,
  readAllFiles,
  readArchive,
  toHex,
} from '../../../src/shared/archive/index.ts';
import { buildRandomTree, fillPseudoRandom, packToBytes, streamOf } from './support.ts';

const entry = new URL('../../../src/shared/archive/index.ts', import.meta.url).pathname;

test('the core bundles for the browser with no node: or bun: imports', async () => {
  const build = await Bun.build({ entrypoints: [entry], target: 'browser', format: 'esm' });
  expect(build.success).toBe(true);
  const code = await build.outputs[0]!.text();
  expect(code).not.toMatch(/from\s*["'](node|bun):/);
  expect(code).not.toMatch(/require\(["'](node|bun):/);
  expect(code).not.toMatch(/import\(["'](node|bun):/);
  expect(code).toContain('ZSTDDecoder');
  expect(code.length).toBeGreaterThan(10_000);
});

test('the bundled browser build runs a pack → read round trip with only web adapters', async () => {
  const build = await Bun.build({ entrypoints: [entry], target: 'browser', format: 'esm' });
  const url = URL.createObjectURL(new Blob([await build.outputs[0]!.text()], { type: 'text/javascript' }));
  const bundled = (await import(url)) as typeof import('../../../src/shared/archive/index.ts');
  const adapters = bundled.createWebAdapters();
  const tree = bundled.createTree();
  const content = new Uint8Array(500_000);
  fillPseudoRandom(content, 11);
  bundled.addFile(tree, 'game/data.bin', bundled.bytesSource(content));
  bundled.addFile(tree, 'game/run', bundled.bytesSource(new TextEncoder().encode('#!')), { mode: 1 });
  const packed = bundled.packArchive(tree, { adapters, compression: 0 });
  const bytes = new Uint8Array(await new Response(packed.stream).arrayBuffer());
  const read = await bundled.readArchive(streamOf(bytes), { adapters });
  const files = await bundled.readAllFiles(read);
  expect(equalBytes(files.get('game/data.bin')!, content)).toBe(true);
  expect(read.index.root.entries.get('game')?.kind).toBe('directory');
});

test('web adapters (WebCrypto + zstddec) produce the same archive as Bun adapters and read zstd', async () => {
  const web = createWebAdapters();
  expect(web.name).toBe('web');
  const { tree } = buildRandomTree(123);
  addSymlink(tree, 'zz-link', 'somewhere');
  const viaWeb = await packToBytes(tree, { adapters: web, compression: 0 });
  const viaBun = await packToBytes(tree, { adapters: createBunAdapters(), compression: 0 });
  expect(toHex(viaWeb.bytes)).toBe(toHex(viaBun.bytes));

  // Written by Bun with zstd, read by the browser side (zstddec).
  const zeros = createTree();
  addFile(zeros, 'zeros.bin', bytesSource(new Uint8Array(700_000)));
  const compressed = await packToBytes(zeros, { compression: 1 });
  expect(compressed.bytes.length).toBeLessThan(10_000);
  const read = await readArchive(streamOf(compressed.bytes), { adapters: web });
  const files = await readAllFiles(read);
  expect(files.get('zeros.bin')!.length).toBe(700_000);
  expect(files.get('zeros.bin')!.every((b) => b === 0)).toBe(true);
});

test('web incremental hasher equals one-shot digests', async () => {
  const web = createWebAdapters();
  const data = new Uint8Array(5000);
  fillPseudoRandom(data, 1);
  const hasher = web.createSha256();
  hasher.update(data.subarray(0, 1234));
  hasher.update(data.subarray(1234));
  expect(toHex(await hasher.digest())).toBe(toHex(await web.sha256(data)));
  expect(toHex(await web.sha256(data))).toBe(toHex(createBunAdapters().sha256(data) as Uint8Array));
  const stream = packArchive(createTree(), { adapters: web }).stream;
  expect((await new Response(stream).arrayBuffer()).byteLength).toBeGreaterThan(36);
});
