import { ArchiveError } from './errors.ts';
import { MODE_EXECUTABLE } from './constants.ts';
import { joinPath, splitPath } from './paths.ts';
import { addSizeToChain, getEntry, insertEntry, walkDirectories } from './tree.ts';
import type { ArchiveEntry, ArchiveTree, PathInput } from './types.ts';

export type MoveResult = { moved: true } | { moved: false; reason: 'into_itself' | 'same_place' };

function startsWith(parts: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= parts.length && prefix.every((name, i) => parts[i] === name);
}

function detach(tree: ArchiveTree, parts: readonly string[]): ArchiveEntry {
  if (parts.length === 0) throw new ArchiveError('invalid_path', 'the root cannot be moved or removed', { path: '' });
  const chain = walkDirectories(tree.root, parts.slice(0, -1), false);
  const parent = chain[chain.length - 1]!;
  const name = parts[parts.length - 1]!;
  const entry = parent.entries.get(name);
  if (entry === undefined) {
    throw new ArchiveError('invalid_path', `'${joinPath(parts)}' does not exist`, { path: joinPath(parts) });
  }
  parent.entries.delete(name);
  addSizeToChain(chain, -entry.size);
  return entry;
}

function attach(tree: ArchiveTree, directoryParts: readonly string[], entry: ArchiveEntry): void {
  const chain = walkDirectories(tree.root, directoryParts, false);
  insertEntry(chain[chain.length - 1]!, entry, [...directoryParts, entry.name]);
  addSizeToChain(chain, entry.size);
}

/** Keeps the entrypoint pointing at the same file when it or a folder above it moves. */
function rebaseEntrypoint(tree: ArchiveTree, from: readonly string[], to: readonly string[]): void {
  if (tree.entrypoint !== undefined && startsWith(tree.entrypoint, from)) {
    tree.entrypoint = [...to, ...tree.entrypoint.slice(from.length)];
  }
}

/**
 * Moves an entry into the directory `toDirectory`, keeping its name. Moving a folder into itself or
 * below itself, or to where it already is, changes nothing and says why; a name taken at the
 * destination is file_exists and leaves the tree as it was.
 */
export function moveEntry(tree: ArchiveTree, from: PathInput, toDirectory: PathInput): MoveResult {
  const source = splitPath(from);
  const destination = splitPath(toDirectory);
  if (source.length === 0 || startsWith(destination, source)) return { moved: false, reason: 'into_itself' };
  if (joinPath(destination) === joinPath(source.slice(0, -1))) return { moved: false, reason: 'same_place' };
  const target = getEntry(tree, destination);
  if (target.kind !== 'directory') {
    throw new ArchiveError('path_not_directory', `'${joinPath(destination)}' is not a directory`, { path: joinPath(destination) });
  }
  const name = source[source.length - 1]!;
  if (target.entries.has(name)) {
    const path = joinPath([...destination, name]);
    throw new ArchiveError('file_exists', `'${path}' already exists`, { path });
  }
  attach(tree, destination, detach(tree, source));
  rebaseEntrypoint(tree, source, [...destination, name]);
  return { moved: true };
}

export function renameEntry(tree: ArchiveTree, path: PathInput, newName: string): void {
  const parts = splitPath(path);
  const [checkedName] = splitPath([newName]);
  if (checkedName === undefined || splitPath([newName]).length !== 1) {
    throw new ArchiveError('invalid_path', `bad name '${newName}'`, { path: newName });
  }
  const parentParts = parts.slice(0, -1);
  const parent = getEntry(tree, parentParts);
  if (parent.kind === 'directory' && parent.entries.has(checkedName)) {
    const taken = joinPath([...parentParts, checkedName]);
    throw new ArchiveError('file_exists', `'${taken}' already exists`, { path: taken });
  }
  const entry = detach(tree, parts);
  entry.name = checkedName;
  attach(tree, parentParts, entry);
  rebaseEntrypoint(tree, parts, [...parentParts, checkedName]);
}

export function removeEntry(tree: ArchiveTree, path: PathInput): ArchiveEntry {
  const parts = splitPath(path);
  const entry = detach(tree, parts);
  if (tree.entrypoint !== undefined && startsWith(tree.entrypoint, parts)) delete tree.entrypoint;
  return entry;
}

/**
 * Replaces a directory by its contents (the "single root directory" fix of spec §5). Any name clash
 * with a sibling is file_exists, checked before anything moves.
 */
export function explodeDirectory(tree: ArchiveTree, path: PathInput): void {
  const parts = splitPath(path);
  const directory = getEntry(tree, parts);
  if (directory.kind !== 'directory' || parts.length === 0) {
    throw new ArchiveError('path_not_directory', `'${joinPath(parts)}' is not a directory`, { path: joinPath(parts) });
  }
  const parentParts = parts.slice(0, -1);
  const parent = getEntry(tree, parentParts);
  if (parent.kind !== 'directory') throw new ArchiveError('path_not_directory', 'parent is not a directory');
  for (const name of directory.entries.keys()) {
    if (name !== directory.name && parent.entries.has(name)) {
      const clash = joinPath([...parentParts, name]);
      throw new ArchiveError('file_exists', `'${clash}' already exists`, { path: clash });
    }
  }
  detach(tree, parts);
  for (const entry of directory.entries.values()) {
    attach(tree, parentParts, entry);
    rebaseEntrypoint(tree, [...parts, entry.name], [...parentParts, entry.name]);
  }
}

export function setEntrypoint(tree: ArchiveTree, path: PathInput | undefined): void {
  if (path === undefined) {
    delete tree.entrypoint;
    return;
  }
  const parts = splitPath(path);
  const entry = getEntry(tree, parts);
  if (entry.kind === 'directory') {
    throw new ArchiveError('invalid_path', `'${joinPath(parts)}' is a directory`, { path: joinPath(parts) });
  }
  tree.entrypoint = parts;
}

export function setExecutable(tree: ArchiveTree, path: PathInput, executable: boolean): void {
  const entry = getEntry(tree, path);
  if (entry.kind !== 'file') {
    const text = joinPath(splitPath(path));
    throw new ArchiveError('invalid_path', `'${text}' is not a file`, { path: text });
  }
  entry.mode = executable ? entry.mode | MODE_EXECUTABLE : entry.mode & ~MODE_EXECUTABLE;
}

/** Flips the executable bit and returns the new state. */
export function toggleExecutable(tree: ArchiveTree, path: PathInput): boolean {
  const entry = getEntry(tree, path);
  const executable = entry.kind === 'file' && (entry.mode & MODE_EXECUTABLE) === 0;
  setExecutable(tree, path, executable);
  return executable;
}
