import { ArchiveError } from './errors.ts';
import { MAX_DIRECTORY_ENTRIES, MODE_MASK } from './constants.ts';
import { compareNames } from './bytes.ts';
import { describeBadTarget, joinPath, splitPath } from './paths.ts';
import type {
  ArchiveDirectory,
  ArchiveEntry,
  ArchiveFile,
  ArchiveSymlink,
  ArchiveTree,
  FileSource,
  PathInput,
} from './types.ts';

export type AddOptions = { mode?: number };
export type FolderFile = { path: PathInput; source: FileSource; mode?: number };

export function createDirectory(name: string, mode = 0): ArchiveDirectory {
  return { kind: 'directory', name, size: 0, mode, entries: new Map() };
}

export function createTree(): ArchiveTree {
  return { root: createDirectory('') };
}

/** Entries in UTF-8 byte order: the order of the index and of the archive's chunk data. */
export function sortedEntries(directory: ArchiveDirectory): ArchiveEntry[] {
  return [...directory.entries.values()].sort((a, b) => compareNames(a.name, b.name));
}

function checkMode(mode: number, path: string): number {
  if (!Number.isInteger(mode) || mode < 0 || (mode & ~MODE_MASK) !== 0) {
    throw new ArchiveError('invalid_path', `mode ${mode} is not 0..3`, { path });
  }
  return mode;
}

/** Directories from the root to `parts` (excluded), created on the way when `create` is set. */
export function walkDirectories(root: ArchiveDirectory, parts: readonly string[], create: boolean): ArchiveDirectory[] {
  const chain = [root];
  let current = root;
  for (let i = 0; i < parts.length; i++) {
    const name = parts[i]!;
    const next = current.entries.get(name);
    if (next === undefined) {
      if (!create) throw new ArchiveError('invalid_path', `'${joinPath(parts.slice(0, i + 1))}' does not exist`, { path: joinPath(parts.slice(0, i + 1)) });
      const made = createDirectory(name);
      insertEntry(current, made, parts.slice(0, i + 1));
      current = made;
    } else if (next.kind === 'directory') {
      current = next;
    } else {
      const path = joinPath(parts.slice(0, i + 1));
      throw new ArchiveError('path_not_directory', `'${path}' is not a directory`, { path });
    }
    chain.push(current);
  }
  return chain;
}

export function insertEntry(directory: ArchiveDirectory, entry: ArchiveEntry, pathParts: readonly string[]): void {
  if (directory.entries.has(entry.name)) {
    const path = joinPath(pathParts);
    throw new ArchiveError('file_exists', `'${path}' already exists`, { path });
  }
  if (directory.entries.size + 1 >= MAX_DIRECTORY_ENTRIES) {
    throw new ArchiveError('too_many_entries', `a directory holds fewer than ${MAX_DIRECTORY_ENTRIES} entries`, {
      path: joinPath(pathParts.slice(0, -1)),
    });
  }
  directory.entries.set(entry.name, entry);
}

export function addSizeToChain(chain: readonly ArchiveDirectory[], delta: number): void {
  for (const directory of chain) directory.size += delta;
}

function addLeaf(tree: ArchiveTree, path: PathInput, entry: ArchiveEntry): void {
  const parts = splitPath(path);
  if (parts.length === 0) throw new ArchiveError('invalid_path', 'empty path', { path: '' });
  const chain = walkDirectories(tree.root, parts.slice(0, -1), true);
  insertEntry(chain[chain.length - 1]!, entry, parts);
  addSizeToChain(chain, entry.size);
}

export function addFile(tree: ArchiveTree, path: PathInput, source: FileSource, options: AddOptions = {}): ArchiveFile {
  const parts = splitPath(path);
  const size = source.size;
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new ArchiveError('invalid_path', `bad size ${size}`, { path: joinPath(parts) });
  }
  const file: ArchiveFile = {
    kind: 'file',
    name: parts[parts.length - 1] ?? '',
    size,
    mode: checkMode(options.mode ?? 0, joinPath(parts)),
    source,
  };
  addLeaf(tree, parts, file);
  return file;
}

export function addSymlink(tree: ArchiveTree, path: PathInput, target: string, options: AddOptions = {}): ArchiveSymlink {
  const parts = splitPath(path);
  const badTarget = describeBadTarget(target);
  if (badTarget !== undefined) throw new ArchiveError('invalid_path', badTarget, { path: joinPath(parts) });
  const link: ArchiveSymlink = {
    kind: 'symlink',
    name: parts[parts.length - 1] ?? '',
    size: 0,
    mode: checkMode(options.mode ?? 0, joinPath(parts)),
    target,
  };
  addLeaf(tree, parts, link);
  return link;
}

/** Like mkdir -p: an existing directory is fine, a file on the way is path_not_directory. */
export function addDirectory(tree: ArchiveTree, path: PathInput): ArchiveDirectory {
  const chain = walkDirectories(tree.root, splitPath(path), true);
  return chain[chain.length - 1]!;
}

/** Adds a whole folder: each file's path is relative to `basePath`. */
export function addFiles(tree: ArchiveTree, basePath: PathInput, files: Iterable<FolderFile>): void {
  const base = splitPath(basePath);
  for (const file of files) {
    addFile(tree, [...base, ...splitPath(file.path)], file.source, file.mode === undefined ? {} : { mode: file.mode });
  }
}

export function findEntry(tree: ArchiveTree, path: PathInput): ArchiveEntry | undefined {
  let current: ArchiveEntry = tree.root;
  for (const name of splitPath(path)) {
    if (current.kind !== 'directory') return undefined;
    const next = current.entries.get(name);
    if (next === undefined) return undefined;
    current = next;
  }
  return current;
}

export function getEntry(tree: ArchiveTree, path: PathInput): ArchiveEntry {
  const entry = findEntry(tree, path);
  if (entry === undefined) {
    const text = typeof path === 'string' ? path : path.join('/');
    throw new ArchiveError('invalid_path', `'${text}' does not exist`, { path: text });
  }
  return entry;
}

/**
 * Depth-first walk in index order, files and links included, with their path parts. An explicit stack,
 * not nested generators: each yield through N nested generators costs N resumes, which made a
 * 1000-deep hostile index take seconds to walk.
 */
export function* walkEntries(
  directory: ArchiveDirectory,
  prefix: readonly string[] = [],
): Generator<{ entry: ArchiveEntry; parts: string[] }> {
  const stack: { entries: ArchiveEntry[]; next: number; parts: readonly string[] }[] = [{ entries: sortedEntries(directory), next: 0, parts: prefix }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const entry = top.entries[top.next++];
    if (!entry) {
      stack.pop();
      continue;
    }
    const parts = [...top.parts, entry.name];
    yield { entry, parts };
    if (entry.kind === 'directory') stack.push({ entries: sortedEntries(entry), next: 0, parts });
  }
}
