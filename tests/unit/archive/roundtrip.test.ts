import { describe, expect, test } from 'bun:test';
import {
  addDirectory,
  addFile,
  addSymlink,
  bytesSource,
  createTree,
  equalBytes,
  indexTree,
  packArchive,
  readArchive,
  walkEntries,
  createBunAdapters,
  type ArchiveDirectory,
} from '../../../src/shared/archive/index.ts';
import { buildRandomTree, fillPseudoRandom, packToBytes, readBack, streamOf, type ExpectedTree } from './support.ts';

function checkAgainst(expected: ExpectedTree, root: ArchiveDirectory, files: Map<string, Uint8Array>): void {
  expect([...files.keys()].sort()).toEqual([...expected.files.keys()].sort());
  for (const [path, bytes] of expected.files) expect(equalBytes(files.get(path)!, bytes)).toBe(true);
  const seen = new Map<string, { kind: string; mode: number; target?: string }>();
  for (const { entry, parts } of walkEntries(root)) {
    seen.set(parts.join('/'), { kind: entry.kind, mode: entry.mode, ...(entry.kind === 'symlink' ? { target: entry.target } : {}) });
  }
  for (const [path, mode] of expected.modes) expect(seen.get(path)).toEqual({ kind: 'file', mode });
  for (const [path, target] of expected.links) expect(seen.get(path)).toEqual({ kind: 'symlink', mode: 0, target });
  for (const path of expected.dirs) expect(seen.get(path)?.kind).toBe('directory');
}

describe('random trees round-trip (property, seeded)', () => {
  for (const [chunking, compression] of [[1, 0], [0, 0], [1, 1], [0, 1]] as const) {
    test(`chunking ${chunking}, compression ${compression}: 15 seeds`, async () => {
      for (let seed = 1; seed <= 15; seed++) {
        const { tree, expected } = buildRandomTree(seed * 31 + chunking * 7 + compression);
        const { bytes, result } = await packToBytes(tree, { chunking, compression });
        expect(result.totalSize).toBe(bytes.length);
        const { read, files } = await readBack(bytes);
        expect(read.index.chunking).toBe(chunking);
        expect(read.index.compression).toBe(compression);
        expect(read.indexHash).toEqual(result.indexHash);
        expect(read.index.root.size).toBe(tree.root.size);
        checkAgainst(expected, read.index.root, files);
      }
    });
  }
});

test('empty tree, empty files and empty directories', async () => {
  const emptyTree = createTree();
  const { files: none, read: emptyRead } = await readBack((await packToBytes(emptyTree)).bytes);
  expect(none.size).toBe(0);
  expect(emptyRead.index.root.entries.size).toBe(0);

  const tree = createTree();
  addFile(tree, 'empty.txt', bytesSource(new Uint8Array(0)));
  addDirectory(tree, 'nothing/inside');
  const { read, files } = await readBack((await packToBytes(tree)).bytes);
  expect(files.get('empty.txt')?.length).toBe(0);
  const nothing = read.index.root.entries.get('nothing');
  expect(nothing?.kind === 'directory' && nothing.entries.get('inside')?.kind).toBe('directory');
});

test('unicode names, symlinks and executable bits survive', async () => {
  const tree = createTree();
  const text = (s: string) => bytesSource(new TextEncoder().encode(s));
  addFile(tree, 'données/日本語/😀.bin', text('emoji'), { mode: 1 });
  addFile(tree, 'données/\u{FF61}', text('halfwidth'));
  addSymlink(tree, 'current', 'données/日本語');
  // A leading BOM is part of the name: a decoder stripping it would merge 'x' and '\uFEFFx'.
  addFile(tree, 'x', text('plain'));
  addFile(tree, '\uFEFFx', text('bom'));
  const { read, files } = await readBack((await packToBytes(tree)).bytes);
  expect(new TextDecoder().decode(files.get('données/日本語/😀.bin'))).toBe('emoji');
  const names = [...walkEntries(read.index.root)].map(({ parts }) => parts.join('/'));
  // Byte order: U+FF61 (EF BD A1) before 日 (E6 97 A5)? No: E6 < EF, so 日本語 first.
  expect(names).toEqual(['current', 'données', 'données/日本語', 'données/日本語/😀.bin', 'données/\u{FF61}', 'x', '\uFEFFx']);
  expect(new TextDecoder().decode(files.get('\uFEFFx'))).toBe('bom');
  expect(new TextDecoder().decode(files.get('x'))).toBe('plain');
  const entry = [...walkEntries(read.index.root)].find(({ parts }) => parts.at(-1) === '😀.bin')!.entry;
  expect(entry.mode).toBe(1);
});

test('a chunk shared by two files is stored once and both files read back', async () => {
  const shared = new Uint8Array(600_000);
  fillPseudoRandom(shared, 5);
  const tree = createTree();
  addFile(tree, 'a.bin', bytesSource(shared));
  addFile(tree, 'b.bin', bytesSource(shared));
  const { bytes, result } = await packToBytes(tree);
  expect(bytes.length).toBeLessThan(shared.length + 2000);
  expect(result.chunkCount).toBe(result.storedChunkCount);
  const { files } = await readBack(bytes);
  expect(equalBytes(files.get('b.bin')!, shared)).toBe(true);
});

test('compression keeps only chunks it makes smaller', async () => {
  const random = new Uint8Array(300_000);
  fillPseudoRandom(random, 9);
  const tree = createTree();
  addFile(tree, 'random.bin', bytesSource(random));
  addFile(tree, 'zeros.bin', bytesSource(new Uint8Array(300_000)));
  const index = await indexTree(tree, { compression: 1 });
  const file = (name: string) => {
    const entry = index.root.entries.get(name);
    return entry?.kind === 'file' ? entry.chunks! : [];
  };
  expect(file('random.bin').every((c) => c.compressedSize === c.size)).toBe(true);
  expect(file('zeros.bin').every((c) => c.compressedSize < c.size / 10)).toBe(true);
  const { bytes } = await packToBytes(index);
  expect(bytes.length).toBeLessThan(310_000);
  const { files } = await readBack(bytes);
  expect(files.get('zeros.bin')!.every((b) => b === 0)).toBe(true);
});

test('a ready index packs without pass 1 and gives the same bytes', async () => {
  const { tree } = buildRandomTree(77);
  const direct = await packToBytes(tree);
  const index = await indexTree(tree);
  const fromIndex = await packToBytes(index);
  expect(equalBytes(fromIndex.bytes, direct.bytes)).toBe(true);
});

test('a source changed between passes fails with source_changed, not a corrupt archive', async () => {
  const bytes = new Uint8Array(100_000).fill(1);
  const tree = createTree();
  addFile(tree, 'mutable.bin', bytesSource(bytes));
  const index = await indexTree(tree);
  bytes[50_000] = 2;
  const packed = packArchive(index);
  const failure = await new Response(packed.stream).arrayBuffer().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect((failure as { code?: string }).code).toBe('source_changed');
  expect(await packed.done.catch((error: { code: string; path: string }) => [error.code, error.path])).toEqual(['source_changed', 'mutable.bin']);
});

test('a source with a different size fails with source_changed', async () => {
  const tree = createTree();
  addFile(tree, 'liar.bin', { size: 10, stream: () => bytesSource(new Uint8Array(12)).stream() });
  const packed = packArchive(tree);
  await new Response(packed.stream).arrayBuffer().catch(() => undefined);
  expect(await packed.done.catch((error: { code: string }) => error.code)).toBe('source_changed');
});

test('a failing source is source_read_failed', async () => {
  const tree = createTree();
  addFile(tree, 'broken.bin', {
    size: 10,
    stream: () => new ReadableStream({ pull: (controller) => controller.error(new Error('disk gone')) }),
  });
  const packed = packArchive(tree);
  await new Response(packed.stream).arrayBuffer().catch(() => undefined);
  expect(await packed.done.catch((error: { code: string }) => error.code)).toBe('source_read_failed');
});

test('the reader accepts the archive one byte at a time', async () => {
  const { tree, expected } = buildRandomTree(4, 5);
  const { bytes } = await packToBytes(tree);
  const read = await readArchive(streamOf(bytes, 1));
  let total = 0;
  for await (const chunk of read.chunks()) total += chunk.size;
  expect(total).toBeGreaterThanOrEqual(0);
  expect(total).toBeLessThanOrEqual([...expected.files.values()].reduce((s, b) => s + b.length, 0));
});

test('with zstd, pass 2 reuses what pass 1 compressed instead of compressing again', async () => {
  const base = createBunAdapters();
  let compressions = 0;
  const counting = { ...base, zstdCompress: (data: Uint8Array, level: number) => (compressions++, base.zstdCompress!(data, level)) };
  const tree = createTree();
  addFile(tree, 'zeros.bin', bytesSource(new Uint8Array(2_000_000)));
  const text = new TextEncoder().encode('level data '.repeat(50_000));
  addFile(tree, 'text.txt', bytesSource(text));
  const progress: string[] = [];
  const { bytes, result } = await packToBytes(tree, { compression: 1, adapters: counting, onProgress: (p) => progress.push(p.phase) });
  const distinct = result.chunkCount;
  expect(compressions).toBe(distinct);
  expect(progress).toContain('index');
  expect(progress).toContain('data');
  const { files } = await readBack(bytes);
  expect(equalBytes(files.get('text.txt')!, text)).toBe(true);
});

test('reading only the index and cancelling releases the stream', async () => {
  const { tree } = buildRandomTree(9);
  const { bytes } = await packToBytes(tree);
  let cancelled = false;
  const stream = streamOf(bytes, 64);
  const wrapped = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const reader = stream.getReader();
      const next = await reader.read();
      reader.releaseLock();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel() {
      cancelled = true;
    },
  });
  const read = await readArchive(wrapped);
  expect(read.index.root.size).toBe(tree.root.size);
  await read.cancel();
  expect(cancelled).toBe(true);
});

test('Bun.file and Blob satisfy FileSource', async () => {
  const dir = await import('node:fs/promises').then((fs) => fs.mkdtemp('/tmp/archive-source-'));
  const path = `${dir}/on-disk.bin`;
  const content = new Uint8Array(400_000);
  fillPseudoRandom(content, 21);
  await Bun.write(path, content);
  const tree = createTree();
  addFile(tree, 'disk.bin', Bun.file(path));
  addFile(tree, 'blob.txt', new Blob(['from a blob']));
  const { files } = await readBack((await packToBytes(tree)).bytes);
  expect(equalBytes(files.get('disk.bin')!, content)).toBe(true);
  expect(new TextDecoder().decode(files.get('blob.txt'))).toBe('from a blob');
  await import('node:fs/promises').then((fs) => fs.rm(dir, { recursive: true }));
});
