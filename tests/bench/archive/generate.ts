import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createByteStream, createRng, type Rng } from './random.ts';

/** What a generated file holds; updates pick their victims by kind. */
export type ContentKind = 'random' | 'texture' | 'level' | 'pak' | 'script' | 'json' | 'text';

export type GeneratedFile = { path: string; size: number; kind: ContentKind; executable: boolean };

export type GeneratedBuild = { root: string; files: GeneratedFile[]; totalBytes: number };

const MiB = 1024 * 1024;
const KiB = 1024;
/** Large files are produced and written in pieces of this size: few syscalls, bounded memory. */
const WRITE_PIECE = 8 * MiB;

/**
 * Bytes of one file kind, as a function of the piece to produce. Deterministic per (seed, path), so a
 * file's bytes do not depend on the order files are written in.
 */
export function createContent(seed: number, path: string, kind: ContentKind): (length: number) => Uint8Array {
  const randomBytes = createByteStream(seed, path);
  switch (kind) {
    case 'random':
      return randomBytes;
    case 'texture':
      return createTextureContent(randomBytes, createRng(hashString(path) ^ seed));
    case 'level':
      return createLevelContent(createRng(hashString(path) ^ seed));
    case 'pak':
      return createPakContent(seed, path, randomBytes);
    case 'script':
    case 'json':
    case 'text':
      return createTextContent(createRng(hashString(path) ^ seed), kind, path);
  }
}

/** Raw texture-like data: a smooth base per row plus a few bits of noise per byte (zstd ≈ 2–4×). */
function createTextureContent(randomBytes: (length: number) => Uint8Array, rng: Rng): (length: number) => Uint8Array {
  const noiseMask = rng.pick([0x03030303, 0x07070707, 0x0f0f0f0f]);
  let row = rng.nextU32();
  return (length) => {
    const noise = alignedCopy(randomBytes(roundUp4(length)));
    const out = new Uint8Array(roundUp4(length));
    const noiseWords = new Uint32Array(noise.buffer, noise.byteOffset, out.length >> 2);
    const outWords = new Uint32Array(out.buffer);
    for (let start = 0; start < outWords.length; start += 16384) {
      row = (row + 0x01010101 * (1 + (row & 3))) | 0;
      const base = Math.imul((row >>> 8) & 0xe0, 0x01010101);
      const end = Math.min(start + 16384, outWords.length);
      for (let i = start; i < end; i++) outWords[i] = base + ((noiseWords[i] ?? 0) & noiseMask);
    }
    return out.subarray(0, length);
  };
}

/** Level data: fixed-size records (id, type, position, flags) with slowly varying fields. */
function createLevelContent(rng: Rng): (length: number) => Uint8Array {
  let id = rng.nextU32() & 0xffff;
  let x = rng.float() * 1000;
  let y = rng.float() * 1000;
  return (length) => {
    const recordCount = Math.ceil(length / 32);
    const out = new Uint8Array(recordCount * 32);
    const words = new Uint32Array(out.buffer);
    const floats = new Float32Array(out.buffer);
    for (let r = 0; r < recordCount; r++) {
      const w = r * 8;
      const noise = rng.nextU32();
      x += ((noise & 0xff) - 128) / 64;
      y += (((noise >>> 8) & 0xff) - 128) / 64;
      words[w] = id++;
      words[w + 1] = (noise >>> 16) & 0x7;
      floats[w + 2] = x;
      floats[w + 3] = y;
      floats[w + 4] = 0;
      words[w + 5] = (noise >>> 24) & 0x3;
      words[w + 6] = 0x3f800000;
      words[w + 7] = 0;
    }
    return out.subarray(0, length);
  };
}

/** A pak: 1 MiB segments of random, texture and level content, as engines pack mixed assets. */
function createPakContent(seed: number, path: string, randomBytes: (length: number) => Uint8Array): (length: number) => Uint8Array {
  const rng = createRng(hashString(path) ^ seed ^ 0x5eed);
  const textures = createTextureContent(createByteStream(seed, `${path}#tex`), rng);
  const levels = createLevelContent(rng);
  const sources = [randomBytes, textures, levels, randomBytes];
  let current = rng.pick(sources);
  let leftInSegment = MiB;
  return (length) => {
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const take = Math.min(leftInSegment, length - filled);
      out.set(current(take), filled);
      filled += take;
      leftInSegment -= take;
      if (leftInSegment === 0) {
        current = rng.pick(sources);
        leftInSegment = MiB;
      }
    }
    return out;
  };
}

const words = [
  'local', 'function', 'return', 'end', 'if', 'then', 'else', 'for', 'in', 'pairs', 'self', 'player', 'enemy',
  'health', 'damage', 'velocity', 'position', 'update', 'draw', 'spawn', 'level', 'score', 'timer', 'sound',
  'sprite', 'animation', 'state', 'input', 'jump', 'attack', 'inventory', 'item', 'quest', 'dialog', 'camera',
];

/** Source, JSON and locale text: similar vocabulary everywhere, unique lines per file. */
function createTextContent(rng: Rng, kind: 'script' | 'json' | 'text', path: string): (length: number) => Uint8Array {
  const encoder = new TextEncoder();
  let pending = encoder.encode(kind === 'json' ? `{"file":"${path}","entries":[\n` : `-- ${path}\n`);
  const line = (): string => {
    switch (kind) {
      case 'script':
        return `${'  '.repeat(rng.below(4))}${rng.pick(words)} ${rng.pick(words)}_${rng.below(100)} = ${rng.pick(words)}.${rng.pick(words)}(${rng.below(1000)})\n`;
      case 'json':
        return `  {"id":${rng.nextU32()},"${rng.pick(words)}":"${rng.pick(words)} ${rng.pick(words)}","value":${rng.below(100000) / 100}},\n`;
      case 'text':
        return `${rng.pick(words)}_${rng.below(500)}=${rng.pick(words)} ${rng.pick(words)} ${rng.pick(words)} ${rng.pick(words)}.\n`;
    }
  };
  return (length) => {
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      if (pending.length === 0) {
        let text = '';
        for (let i = 0; i < 64; i++) text += line();
        pending = encoder.encode(text);
      }
      const take = Math.min(pending.length, length - filled);
      out.set(pending.subarray(0, take), filled);
      pending = pending.subarray(take);
      filled += take;
    }
    return out;
  };
}

/** Writes `size` bytes produced by `content` in large pieces. */
export function writeGeneratedFile(path: string, size: number, content: (length: number) => Uint8Array, executable = false): void {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'w', executable ? 0o755 : 0o644);
  try {
    for (let written = 0; written < size; ) {
      const piece = content(Math.min(WRITE_PIECE, size - written));
      writeSync(fd, piece);
      written += piece.length;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Plans a synthetic game build of about `sizeMiB`: ≈ 5% small text files (thousands of them), ≈ 40%
 * compressible assets (textures, level data), ≈ 25% incompressible binaries and audio, three paks of
 * 128/96/48 MiB at full scale (scaled down proportionally for quick runs).
 */
function planBuild(seed: number, sizeMiB: number): GeneratedFile[] {
  const scale = sizeMiB / 1024;
  const rng = createRng(seed);
  const files: GeneratedFile[] = [];
  const add = (path: string, size: number, kind: ContentKind, executable = false): void => {
    files.push({ path, size: Math.max(1, Math.round(size)), kind, executable });
  };
  const fill = (budget: number, minSize: number, maxSize: number, makePath: (index: number) => string, kind: ContentKind): void => {
    const min = Math.max(1, Math.min(minSize, budget));
    const max = Math.max(min, Math.min(maxSize, budget));
    for (let used = 0, index = 0; used < budget; index++) {
      const size = Math.min(rng.logBetween(min, max), budget - used);
      add(makePath(index), size, kind);
      used += size;
    }
  };
  const pad = (n: number, width: number): string => String(n).padStart(width, '0');

  add('bin/game.x86_64', 24 * MiB * scale, 'random', true);
  add('bin/game.exe', 20 * MiB * scale, 'random', true);
  for (let i = 0; i < 6; i++) add(`bin/lib/libengine${i}.so`, rng.logBetween(512 * KiB, 4 * MiB) * scale, 'random');
  add('paks/base.pak', 128 * MiB * scale, 'pak');
  add('paks/textures.pak', 96 * MiB * scale, 'pak');
  add('paks/audio.pak', 48 * MiB * scale, 'pak');
  fill(300 * MiB * scale, 16 * KiB, 4 * MiB, (i) => `assets/textures/set${pad(i % 12, 2)}/tex_${pad(i, 4)}.dds`, 'texture');
  fill(210 * MiB * scale, 32 * KiB, 6 * MiB, (i) => `assets/audio/${i % 3 === 0 ? 'music' : `sfx${i % 7}`}/clip_${pad(i, 4)}.ogg`, 'random');
  fill(124 * MiB * scale, 64 * KiB, 2 * MiB, (i) => `assets/levels/level_${pad(i % 40, 2)}/chunk_${pad(i, 4)}.lvl`, 'level');
  fill(34 * MiB * scale, 512, 24 * KiB, (i) => `scripts/${rng.pick(words)}/${rng.pick(words)}_${pad(i, 5)}.lua`, 'script');
  fill(18 * MiB * scale, 256, 32 * KiB, (i) => `data/${rng.pick(['items', 'quests', 'npcs', 'config'])}/entry_${pad(i, 5)}.json`, 'json');
  fill(8 * MiB * scale, 128, 16 * KiB, (i) => `text/locale/${rng.pick(['en', 'de', 'fr', 'ja', 'es'])}/strings_${pad(i, 4)}.txt`, 'text');
  add('README.txt', 2 * KiB, 'text');
  return files;
}

export function generateBuild(root: string, seed: number, sizeMiB: number): GeneratedBuild {
  const files = planBuild(seed, sizeMiB);
  let totalBytes = 0;
  for (const file of files) {
    writeGeneratedFile(join(root, file.path), file.size, createContent(seed, file.path, file.kind), file.executable);
    totalBytes += file.size;
  }
  return { root, files, totalBytes };
}

function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function roundUp4(n: number): number {
  return (n + 3) & ~3;
}

function alignedCopy(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
}
