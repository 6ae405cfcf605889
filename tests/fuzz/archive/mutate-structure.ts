import {
  CHUNK_HASH_SIZE,
  MAX_CHUNK_SIZE,
  MIN_CHUNK_SIZE,
  encodeIndex,
  type ArchiveDirectory,
  type ArchiveEntry,
  type ArchiveFile,
  type ArchiveIndex,
} from '../../../src/shared/archive/index.ts';
import type { Rng } from '../../bench/archive/random.ts';
import type { Seed } from './corpus.ts';
import { concatBytes } from '../../../src/shared/archive/bytes.ts';
import { encodeLoose, pickVarint, sha256 } from './mutate-bytes.ts';

/** Rebuilds a seed around new index bytes: header with their size (unless told not to) and their hash. */
export function withIndex(seed: Seed, index: Uint8Array, fixSize: boolean): Uint8Array {
  const declared = fixSize ? index.length : seed.indexEnd - seed.indexStart;
  const flags = encodeLoose(seed.patch ? 1n : 0n);
  const rest = seed.bytes.subarray(seed.indexEnd + CHUNK_HASH_SIZE);
  return concatBytes([seed.bytes.subarray(0, 4), flags, encodeLoose(BigInt(declared)), index, sha256(index), rest]);
}

function cloneDirectory(directory: ArchiveDirectory): ArchiveDirectory {
  const copy: ArchiveDirectory = { kind: 'directory', name: directory.name, size: directory.size, mode: directory.mode, entries: new Map() };
  for (const [name, entry] of directory.entries) {
    copy.entries.set(
      name,
      entry.kind === 'directory' ? cloneDirectory(entry) : entry.kind === 'file' ? { ...entry, chunks: entry.chunks?.map((c) => ({ ...c })) } : { ...entry },
    );
  }
  return copy;
}

function listFiles(directory: ArchiveDirectory, out: ArchiveFile[] = []): ArchiveFile[] {
  for (const entry of directory.entries.values()) {
    if (entry.kind === 'directory') listFiles(entry, out);
    else if (entry.kind === 'file' && (entry.chunks?.length ?? 0) > 0) out.push(entry);
  }
  return out;
}

function listEntries(directory: ArchiveDirectory, out: Array<{ parent: ArchiveDirectory; entry: ArchiveEntry }> = []) {
  for (const entry of directory.entries.values()) {
    out.push({ parent: directory, entry });
    if (entry.kind === 'directory') listEntries(entry, out);
  }
  return out;
}

const hostileTargets = [
  '..', '../x', '../../etc/passwd', '/etc/passwd', 'a/../../x', 'levels/../../../x', 'C:/x', 'C:x', '\\\\server\\share', 'x\\..\\..',
  'zz-up/x', 'zz-up/../x', 'zz-link', 'link', 'data/link', '.', './', 'levels/./1.json', 'levels//1.json', '',
];
const badNames = ['..', '.', '', 'a/b', 'a\\b', '/', 'nul\0name', 'CON', ' ', '\u202e', 'x'.repeat(300)];

/** A well-formed index that says something inconsistent: the decoder's semantic checks. */
export function mutateIndexSemantics(rng: Rng, seed: Seed, recipe: string[]): Uint8Array {
  const index: ArchiveIndex = { chunking: seed.index.chunking, compression: seed.index.compression, root: cloneDirectory(seed.index.root) };
  const files = listFiles(index.root);
  const entries = listEntries(index.root);
  const file = files.length > 0 ? rng.pick(files) : undefined;
  const chunk = file?.chunks && file.chunks.length > 0 ? rng.pick(file.chunks) : undefined;
  switch (rng.below(10)) {
    case 0:
      if (chunk && file) {
        const size = rng.pick([0, 1, MIN_CHUNK_SIZE - 1, MIN_CHUNK_SIZE, MAX_CHUNK_SIZE, MAX_CHUNK_SIZE + 1, chunk.size + 1]);
        if (rng.below(2) === 0) file.size += size - chunk.size;
        chunk.size = size;
        recipe.push(`chunk.size=${size}`);
      }
      break;
    case 1:
      if (chunk) {
        chunk.compressedSize = rng.pick([0, 1, chunk.size - 1, chunk.size, chunk.size + 1, MAX_CHUNK_SIZE]);
        recipe.push(`chunk.compressedSize=${chunk.compressedSize}`);
      }
      break;
    case 2: {
      const all = files.flatMap((f) => f.chunks ?? []);
      if (chunk && all.length > 0) {
        chunk.hash = rng.pick(all).hash;
        recipe.push('chunk.hash=other');
      }
      break;
    }
    case 3:
      if (file?.chunks) {
        const times = rng.between(2, 4);
        file.chunks = Array.from({ length: times }, () => file.chunks!).flat();
        file.size *= times;
        recipe.push(`chunks×${times}`);
      }
      break;
    case 4:
      if (entries.length > 0) {
        const { entry } = rng.pick(entries);
        entry.name = rng.pick(badNames);
        recipe.push(`name=${JSON.stringify(entry.name)}`);
      }
      break;
    case 5: {
      if (entries.length > 0) {
        const { parent, entry } = rng.pick(entries);
        const sibling = [...parent.entries.values()].find((other) => other !== entry);
        if (sibling) {
          entry.name = sibling.name;
          recipe.push('name=sibling');
        }
      }
      break;
    }
    case 6: {
      // Deep chains are slow to read (≈ 50 ms at the limit), so mostly shallow ones.
      const depth = rng.below(10) === 0 ? rng.pick([1023, 1024, 1025, 1100]) : rng.between(2, 40);
      let root: ArchiveDirectory = index.root;
      for (let i = 0; i < depth; i++) {
        const child: ArchiveDirectory = { kind: 'directory', name: 'd', size: 0, mode: 0, entries: new Map() };
        root.entries = new Map([['d', child]]);
        root = child;
      }
      recipe.push(`depth=${depth}`);
      break;
    }
    case 7:
      if (entries.length > 0) {
        const { entry } = rng.pick(entries);
        entry.mode = rng.pick([4, 7, 8, 255, 2 ** 31, 2 ** 32 + 1]);
        recipe.push(`mode=${entry.mode}`);
      }
      break;
    case 8: {
      // Link targets that must not lead out of an extraction folder, directly or through other links.
      const links = entries.filter(({ entry }) => entry.kind === 'symlink');
      const target = rng.pick(hostileTargets);
      if (links.length > 0) {
        const { entry } = rng.pick(links);
        if (entry.kind === 'symlink') entry.target = target;
      } else {
        index.root.entries.set('zz-link', { kind: 'symlink', name: 'zz-link', size: 0, mode: 0, target });
      }
      if (rng.below(2) === 0) index.root.entries.set('zz-up', { kind: 'symlink', name: 'zz-up', size: 0, mode: 0, target: '..' });
      recipe.push(`symlink→${JSON.stringify(target)}`);
      break;
    }
    default:
      index.chunking = rng.pick([0, 1]);
      index.compression = rng.pick([0, 1]);
      recipe.push(`settings=${index.chunking}/${index.compression}`);
      break;
  }
  let encoded: Uint8Array;
  try {
    encoded = concatBytes(encodeIndex(index));
  } catch {
    recipe.push('unencodable');
    return seed.bytes;
  }
  return withIndex(seed, encoded, true);
}

export function mutateHeader(rng: Rng, seed: Seed, recipe: string[]): Uint8Array {
  // Mostly one field at a time, so the other one still lets the reader go on.
  const which = rng.below(3);
  const realFlags = encodeLoose(seed.patch ? 1n : 0n);
  const realSize = BigInt(seed.indexEnd - seed.indexStart);
  const nearSize = (): Uint8Array => {
    const size = realSize + BigInt(rng.between(-2, 2));
    return encodeLoose(size < 0n ? 0n : size, rng.below(4) === 0 ? 1 : 0);
  };
  const flags = which === 1 ? realFlags : pickVarint(rng);
  const size = which === 0 ? encodeLoose(realSize) : rng.below(2) === 0 ? pickVarint(rng) : nearSize();
  recipe.push(`header flags=[${[...flags].join(',')}] size=[${[...size].join(',')}]`);
  return concatBytes([seed.bytes.subarray(0, 4), flags, size, seed.bytes.subarray(seed.indexStart)]);
}

export function mutatePatchSection(rng: Rng, seed: Seed, recipe: string[]): Uint8Array {
  const start = seed.indexEnd + CHUNK_HASH_SIZE;
  const baseHash = seed.bytes.slice(start, start + CHUNK_HASH_SIZE);
  if (rng.below(4) === 0) baseHash[rng.below(CHUNK_HASH_SIZE)]! ^= 0xff;
  const count = rng.below(3) === 0 ? pickVarint(rng) : encodeLoose(BigInt(rng.below(6)));
  const gaps = Array.from({ length: rng.below(6) }, () => (rng.below(3) === 0 ? pickVarint(rng) : encodeLoose(BigInt(rng.below(4)))));
  recipe.push(`patch count=[${[...count].join(',')}] gaps=${gaps.length}`);
  return concatBytes([seed.bytes.subarray(0, start), baseHash, count, ...gaps, seed.bytes.subarray(seed.dataStart)]);
}

