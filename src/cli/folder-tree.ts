import { lstat, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { addDirectory, addFiles, addSymlink, createTree, MODE_EXECUTABLE, type ArchiveTree, type FolderFile } from '../shared/archive/index.ts';
import { CliError, exitCodes } from './errors.ts';

export type FolderTree = {
  tree: ArchiveTree;
  fileCount: number;
  totalSize: number;
  /** SHA-256 over every path, size, mode and modification time: a resumed push checks nothing changed. */
  fingerprint: string;
};

/**
 * The archive tree of a folder: files with the executable bit from their mode, symlinks kept as
 * links, empty folders kept. Sources read the files lazily (Bun.file), so nothing is held in memory.
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

  await walk(root, []);
  addFiles(tree, [], files);
  return { tree, fileCount: files.length, totalSize, fingerprint: hasher.digest('hex') };
}
