import { ArchiveError } from './errors.ts';
import type { ArchiveDirectory, ArchiveEntry } from './types.ts';

const MAX_LINK_HOPS = 40;

function outside(path: string, target: string): ArchiveError {
  return new ArchiveError('path_outside_target', `symlink '${path}' → '${target}' leaves the target directory`, { path });
}

/**
 * Resolves a symlink as the operating system would, against the archive's own tree (the target folder
 * holds nothing else), following links met on the way. Any step above the root, an absolute target or
 * a loop is path_outside_target. Missing components are treated as plain names.
 */
export function checkSymlinkTarget(root: ArchiveDirectory, linkParts: readonly string[], target: string): void {
  const path = linkParts.join('/');
  let hops = 0;
  const resolve = (startParts: readonly string[], text: string): string[] => {
    if (text.startsWith('/') || text.includes('\\') || /^[A-Za-z]:/.test(text) || text.includes('\0')) throw outside(path, target);
    const stack = [...startParts];
    const pieces = text.split('/');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (piece === '' || piece === '.') continue;
      if (piece === '..') {
        if (stack.length === 0) throw outside(path, target);
        stack.pop();
        continue;
      }
      stack.push(piece);
      const entry = lookup(root, stack);
      if (entry?.kind === 'symlink') {
        if (++hops > MAX_LINK_HOPS) throw outside(path, target);
        stack.pop();
        const resolved = resolve(stack, entry.target);
        stack.length = 0;
        stack.push(...resolved);
      }
    }
    return stack;
  };
  resolve(linkParts.slice(0, -1), target);
}

function lookup(root: ArchiveDirectory, parts: readonly string[]): ArchiveEntry | undefined {
  let current: ArchiveEntry = root;
  for (const name of parts) {
    if (current.kind !== 'directory') return undefined;
    const next: ArchiveEntry | undefined = current.entries.get(name);
    if (next === undefined) return undefined;
    current = next;
  }
  return current;
}
