import {
  addFile,
  addSymlink,
  createTree,
  encodeIndex,
  packArchive,
  readArchive,
  toHex,
  type ArchiveIndex,
  type ArchiveTree,
  type ChunkingAlgorithm,
  type CompressionAlgorithm,
} from '../../../src/shared/archive/index.ts';
import { concatBytes } from '../../../src/shared/archive/bytes.ts';
import { bytesSource } from '../../../src/shared/archive/sources.ts';
import { createRng, type Rng } from '../../bench/archive/random.ts';

/** A valid archive the mutators start from, with where its sections lie. */
export type Seed = {
  name: string;
  bytes: Uint8Array;
  /** Header: magic, flags varint, index size varint. */
  headerLength: number;
  indexStart: number;
  indexEnd: number;
  /** After the index hash and, for patches, the patch section. */
  dataStart: number;
  patch: boolean;
  index: ArchiveIndex;
  /** For patches: the base's chunks by hex hash, what a reader's getBaseChunk serves. */
  baseChunks?: Map<string, Uint8Array>;
  /** Every file's bytes by path: what a successful read of the unmutated seed must give back. */
  files: Map<string, Uint8Array>;
};

type TreeSpec = Array<{ path: string; bytes?: Uint8Array; mode?: number; target?: string }>;

const KiB = 1024;

function makeBytes(rng: Rng, length: number, compressible: boolean): Uint8Array {
  const bytes = new Uint8Array(length);
  rng.fill(bytes);
  if (compressible) for (let i = 0; i < length; i++) bytes[i] = (bytes[i]! & 0x03) + 0x41;
  return bytes;
}

function buildTree(spec: TreeSpec): { tree: ArchiveTree; files: Map<string, Uint8Array> } {
  const tree = createTree();
  const files = new Map<string, Uint8Array>();
  for (const entry of spec) {
    if (entry.target !== undefined) addSymlink(tree, entry.path, entry.target);
    else {
      const bytes = entry.bytes ?? new Uint8Array(0);
      addFile(tree, entry.path, bytesSource(bytes, 16 * KiB), { mode: entry.mode ?? 0 });
      files.set(entry.path, bytes);
    }
  }
  return { tree, files };
}

async function drain(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function readVarintAt(bytes: Uint8Array, offset: number): { value: number; next: number } {
  let value = 0;
  let scale = 1;
  for (let i = offset; i < bytes.length; i++) {
    value += (bytes[i]! & 0x7f) * scale;
    if (bytes[i]! < 0x80) return { value, next: i + 1 };
    scale *= 128;
  }
  throw new Error('seed has a truncated varint');
}

/** Finds the sections of a valid archive (only ever called on the writer's own output). */
function locateSections(bytes: Uint8Array): Pick<Seed, 'headerLength' | 'indexStart' | 'indexEnd' | 'dataStart' | 'patch'> {
  const flags = readVarintAt(bytes, 4);
  const size = readVarintAt(bytes, flags.next);
  const indexStart = size.next;
  const indexEnd = indexStart + size.value;
  let dataStart = indexEnd + 32;
  const patch = flags.value === 1;
  if (patch) {
    let cursor = readVarintAt(bytes, dataStart + 32);
    for (let i = 0; i < cursor.value; i++) cursor = { value: cursor.value, next: readVarintAt(bytes, cursor.next).next };
    dataStart = cursor.next;
  }
  return { headerLength: indexStart, indexStart, indexEnd, dataStart, patch };
}

async function makeSeed(
  name: string,
  spec: TreeSpec,
  chunking: ChunkingAlgorithm,
  compression: CompressionAlgorithm,
  baseSpec?: TreeSpec,
): Promise<Seed> {
  let base: ArchiveIndex | undefined;
  let baseChunks: Map<string, Uint8Array> | undefined;
  if (baseSpec !== undefined) {
    const { tree: baseTree } = buildTree(baseSpec);
    const packed = packArchive(baseTree, { chunking, compression });
    const baseBytes = await drain(packed.stream);
    base = (await packed.done).index;
    baseChunks = new Map();
    // The base's chunks keyed by hash: what getBaseChunk serves (raw, uncompressed bytes).
    const read = await readArchive(new Blob([baseBytes as Uint8Array<ArrayBuffer>]).stream());
    for await (const chunk of read.chunks()) baseChunks.set(toHex(chunk.hash), chunk.bytes);
  }
  const { tree, files } = buildTree(spec);
  const packed = packArchive(tree, base === undefined ? { chunking, compression } : { chunking, compression, base });
  const bytes = await drain(packed.stream);
  const { index } = await packed.done;
  const sections = locateSections(bytes);
  const indexLength = encodeIndex(index).reduce((sum, part) => sum + part.length, 0);
  if (sections.indexEnd - sections.indexStart !== indexLength) throw new Error(`seed ${name}: sections misread`);
  return { name, bytes, ...sections, index, files, ...(baseChunks === undefined ? {} : { baseChunks }) };
}

/**
 * A handful of valid archives covering the format's branches: empty tree, nested directories, links,
 * executable bits, Unicode names, multi-chunk files, duplicate content, both chunkings, both
 * compressions, and patches against a base.
 */
export async function buildCorpus(seed = 1): Promise<Seed[]> {
  const rng = createRng(seed);
  const small: TreeSpec = [
    { path: 'readme.txt', bytes: new TextEncoder().encode('hello, cartridge\n') },
    { path: 'bin/game', bytes: makeBytes(rng, 300, false), mode: 1 },
    { path: 'data/levels/1.json', bytes: makeBytes(rng, 700, true) },
    { path: 'data/levels/2.json', bytes: makeBytes(rng, 90, true) },
    { path: 'data/empty.bin' },
    { path: 'data/link', target: 'levels/1.json' },
    { path: 'ünïcødé/日本語.txt', bytes: makeBytes(rng, 40, true) },
    { path: 'Z/a', bytes: makeBytes(rng, 10, false), mode: 3 },
  ];
  const shared = makeBytes(rng, 20 * KiB, true);
  const multi: TreeSpec = [
    { path: 'big/mixed.pak', bytes: concatBytes([makeBytes(rng, 70 * KiB, false), makeBytes(rng, 60 * KiB, true)]) },
    { path: 'big/copy-a.bin', bytes: shared },
    { path: 'big/copy-b.bin', bytes: shared },
    { path: 'small.txt', bytes: makeBytes(rng, 33, true) },
  ];
  const fixedMulti: TreeSpec = [{ path: 'huge.bin', bytes: makeBytes(rng, 300 * KiB, true) }, { path: 'tiny', bytes: new Uint8Array([7]) }];
  const edited = small.map((entry) =>
    entry.path === 'data/levels/1.json' ? { path: entry.path, bytes: makeBytes(rng, 720, true) } : entry,
  );
  edited.push({ path: 'data/levels/3.json', bytes: makeBytes(rng, 200, true) });
  const bigBase: TreeSpec = [{ path: 'pak', bytes: concatBytes([makeBytes(rng, 40 * KiB, false), makeBytes(rng, 50 * KiB, true)]) }];
  const bigEdited: TreeSpec = [{ path: 'pak', bytes: concatBytes([bigBase[0]!.bytes!, makeBytes(rng, 3 * KiB, false)]) }];

  return Promise.all([
    makeSeed('empty', [], 1, 0),
    makeSeed('one-file', [{ path: 'a', bytes: new Uint8Array([1, 2, 3]) }], 1, 0),
    makeSeed('small/cdc/none', small, 1, 0),
    makeSeed('small/cdc/zstd', small, 1, 1),
    makeSeed('small/fixed/none', small, 0, 0),
    makeSeed('small/fixed/zstd', small, 0, 1),
    makeSeed('multi/cdc/none', multi, 1, 0),
    makeSeed('multi/cdc/zstd', multi, 1, 1),
    makeSeed('multi/fixed/zstd', fixedMulti, 0, 1),
    makeSeed('patch/small/cdc/zstd', edited, 1, 1, small),
    makeSeed('patch/small/fixed/none', edited, 0, 0, small),
    makeSeed('patch/big/cdc/none', bigEdited, 1, 0, bigBase),
  ]);
}

