import { lstat, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { addDirectory, addFiles, addSymlink, checkSymlinks, createTree, isArchiveError, MODE_EXECUTABLE, shownPath, type ArchiveTree, type FolderFile } from '../shared/archive/index.ts';
import { CliError, exitCodes } from './errors.ts';

export type FolderTree = {
  tree: ArchiveTree;
  fileCount: number;
  totalSize: number;
  /** SHA-256 over every path, size, mode and modification time: a resumed push checks nothing changed. */
  fingerprint: string;
};

/** Text of a path in a message: a hostile name may be thousands of bytes long. */
function shorten(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** Archive failures that mean "the folder's content cannot be an archive", not a failure to read it. */
const contentRefusals = new Set(['path_outside_target', 'invalid_entry', 'invalid_path', 'too_many_entries', 'path_not_directory', 'file_exists']);

/**
 * What the archive format refuses (the rules the server's reader applies at finalize) as a usage
 * error (exit 1) naming the entry: a symlink leading outside the folder, a name above 255 bytes, a
 * path above 4096 bytes, a name the format cannot hold. Anything else is returned as it is.
 */
export function folderRefusal(root: string | undefined, error: unknown): unknown {
  if (!isArchiveError(error) || !contentRefusals.has(error.code)) return error;
  const what =
    error.code === 'path_outside_target'
      ? `${error.message}: links must stay inside the folder (relative, '/' only, not above it, not through links that leave it)`
      : `${error.path === undefined ? '' : `'${shorten(shownPath(error.path))}': `}${shorten(error.message)}`;
  return new CliError(exitCodes.usage, `cannot pack ${root === undefined ? 'the folder' : `'${root}'`}: ${what}`);
}

/**
 * The archive tree of a folder: files with the executable bit from their mode, symlinks kept as
 * links, empty folders kept. Sources read the files lazily (Bun.file), so nothing is held in memory.
 * A folder the archive format refuses (see folderRefusal) is a usage error before anything is read.
 */
export async function readFolderTree(root: string): Promise<FolderTree> {
  const rootStat = await lstat(root).catch(() => undefined);
  if (!rootStat?.isDirectory()) throw new CliError(exitCodes.usage, `'${root}' is not a folder`);
  const tree = createTree();
  const files: FolderFile[] = [];
  const hasher = new Bun.CryptoHasher('sha256');
  let totalSize = 0;

  async function walk(dir: string, parts: string[]): Promise<void> {
    const names = (await readdir(dir)).sort();
    for (const name of names) {
      const path = join(dir, name);
      const stat = await lstat(path);
      const entryParts = [...parts, name];
      if (stat.isDirectory()) {
        addDirectory(tree, entryParts);
        hasher.update(`d\0${entryParts.join('/')}\n`);
        await walk(path, entryParts);
      } else if (stat.isSymbolicLink()) {
        const target = await readlink(path);
        addSymlink(tree, entryParts, target);
        hasher.update(`l\0${entryParts.join('/')}\0${target}\n`);
      } else if (stat.isFile()) {
        const mode = (stat.mode & 0o111) !== 0 ? MODE_EXECUTABLE : 0;
        const size = stat.size;
        files.push({ path: entryParts, source: { size, stream: () => Bun.file(path).stream() }, mode });
        totalSize += size;
        hasher.update(`f\0${entryParts.join('/')}\0${size}\0${mode}\0${stat.mtimeMs}\n`);
      }
      // Sockets, devices and pipes are not game files: skipped.
    }
  }

  try {
    await walk(root, []);
    addFiles(tree, [], files);
    checkSymlinks(tree.root);
  } catch (error) {
    throw folderRefusal(root, error);
  }
  return { tree, fileCount: files.length, totalSize, fingerprint: hasher.digest('hex') };
}
