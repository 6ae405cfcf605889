import { ArchiveError } from '../archive/errors.ts';
import { explodeDirectory, setEntrypoint, setExecutable } from '../archive/tree-edit.ts';
import type { ArchiveTree } from '../archive/types.ts';
import type { PackageFix } from './checks.ts';
import { sortTags } from './tags.ts';

export type FixResult = { tree: ArchiveTree; tags: string[] };

/**
 * Applies a check's fix. The tree is edited in place (the archive library's tree edits mutate) and
 * returned; tags come back as a new list in normalised order. Tree edits throw ArchiveError as usual
 * (e.g. file_exists when exploding a folder would clash with a sibling).
 */
export function applyFix(tree: ArchiveTree, tags: readonly string[], fix: PackageFix): FixResult {
  switch (fix.kind) {
    case 'add_tags':
      return { tree, tags: sortTags([...tags, ...fix.tags]) };
    case 'set_executable':
      setExecutable(tree, fix.path, true);
      break;
    case 'explode_root':
      explodeDirectory(tree, fix.path);
      break;
    case 'set_entrypoint':
      if (!fix.path) throw new ArchiveError('invalid_path', 'choose the entrypoint file first', { path: '' });
      setEntrypoint(tree, fix.path);
      break;
    case 'unset_entrypoint':
      setEntrypoint(tree, undefined);
      break;
  }
  return { tree, tags: [...tags] };
}
