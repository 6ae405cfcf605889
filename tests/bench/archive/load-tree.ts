import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { addFile, createTree } from '../../../src/shared/archive/tree.ts';
import type { ArchiveTree } from '../../../src/shared/archive/types.ts';

/** Mirrors a folder on disk as an archive tree whose sources are Bun.file blobs (read lazily). */
export function loadTree(root: string): ArchiveTree {
  const tree = createTree();
  const walk = (dir: string, prefix: string[]): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path, [...prefix, name]);
      else if (stat.isFile()) addFile(tree, [...prefix, name], Bun.file(path), { mode: stat.mode & 0o100 ? 1 : 0 });
    }
  };
  walk(root, []);
  return tree;
}
