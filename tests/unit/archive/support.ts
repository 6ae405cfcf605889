import {
  addDirectory,
  addFile,
  addSymlink,
  bytesSource,
  createTree,
  readAllFiles,
  readArchive,
  packArchive,
  type ArchiveTree,
  type PackOptions,
  type ReadOptions,
  type PackResult,
  type ArchiveReadResult,
} from '../../../src/shared/archive/index.ts';

/** mulberry32: small seeded PRNG so every "random" case is reproducible from its seed. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomBytes(random: () => number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (random() * 256) | 0;
  return out;
}

/** Fast pseudo-random fill for large buffers (xorshift32), deterministic from seed and offset. */
export function fillPseudoRandom(buffer: Uint8Array, seed: number): void {
  let x = seed | 1;
  for (let i = 0; i < buffer.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    buffer[i] = x & 0xff;
  }
}

const nameAlphabet = ['a', 'b', 'Z', 'é', 'ß', '日本', '😀', '\u{FF61}', '_', '-', ' ', '1'];

function randomName(random: () => number): string {
  const length = 1 + Math.floor(random() * 6);
  let name = '';
  for (let i = 0; i < length; i++) name += nameAlphabet[Math.floor(random() * nameAlphabet.length)];
  return name === '.' || name === '..' ? `${name}x` : name;
}

export type ExpectedTree = { files: Map<string, Uint8Array>; modes: Map<string, number>; links: Map<string, string>; dirs: Set<string> };

/** A random tree plus what it should contain, for round-trip properties. */
export function buildRandomTree(seed: number, maxFiles = 12): { tree: ArchiveTree; expected: ExpectedTree } {
  const random = createRandom(seed);
  const tree = createTree();
  const expected: ExpectedTree = { files: new Map(), modes: new Map(), links: new Map(), dirs: new Set() };
  const dirs: string[][] = [[]];
  const taken = new Set<string>();
  const count = 1 + Math.floor(random() * maxFiles);
  for (let i = 0; i < count; i++) {
    const parent = dirs[Math.floor(random() * dirs.length)]!;
    const parts = [...parent, randomName(random)];
    const path = parts.join('/');
    if ([...taken].some((t) => t === path || t.startsWith(`${path}/`) || path.startsWith(`${t}/`))) continue;
    const roll = random();
    if (roll < 0.2) {
      addDirectory(tree, parts);
      dirs.push(parts);
      expected.dirs.add(path);
    } else if (roll < 0.3) {
      addSymlink(tree, parts, 'target/of/link');
      expected.links.set(path, 'target/of/link');
    } else {
      const sizeRoll = random();
      const size = sizeRoll < 0.2 ? 0 : sizeRoll < 0.8 ? Math.floor(random() * 5000) : Math.floor(random() * 700_000);
      const bytes = random() < 0.5 ? randomBytes(random, size) : new Uint8Array(size).fill(size & 0xff);
      const mode = random() < 0.3 ? 1 : 0;
      addFile(tree, parts, bytesSource(bytes, 1 + Math.floor(random() * 100_000)), { mode });
      expected.files.set(path, bytes);
      expected.modes.set(path, mode);
    }
    taken.add(path);
  }
  return { tree, expected };
}

export async function packToBytes(tree: Parameters<typeof packArchive>[0], options: PackOptions = {}): Promise<{ bytes: Uint8Array; result: PackResult }> {
  const packed = packArchive(tree, options);
  const bytes = new Uint8Array(await new Response(packed.stream).arrayBuffer());
  return { bytes, result: await packed.done };
}

/** A stream that hands the bytes out in pieces of varying size, like a network would. */
export function streamOf(bytes: Uint8Array, pieceSize = 7919): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      const end = Math.min(bytes.length, offset + pieceSize);
      controller.enqueue(bytes.slice(offset, end));
      offset = end;
    },
  });
}

export async function readBack(bytes: Uint8Array, options: ReadOptions = {}): Promise<{ read: ArchiveReadResult; files: Map<string, Uint8Array> }> {
  const read = await readArchive(streamOf(bytes), options);
  return { read, files: await readAllFiles(read) };
}

/** Resolves with the error a promise rejects with, or fails the test if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<{ code?: string; path?: string; status?: number; name?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string };
  }
  throw new Error('expected a rejection');
}

export function thrownBy(action: () => unknown): { code?: string; path?: string; name?: string } {
  try {
    action();
  } catch (error) {
    return error as { code?: string };
  }
  throw new Error('expected a throw');
}
