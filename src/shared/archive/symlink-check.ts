import { ArchiveError } from './errors.ts';
import { MAX_LINK_HOPS } from './constants.ts';
import type { ArchiveDirectory, ArchiveEntry, ArchiveSymlink } from './types.ts';

/**
 * THE symlink rule of Cartridge archives, shared by every side that meets links: the reader (so the
 * server refuses them at finalize), the writer and the CLI's folder packer, the extractor and the
 * server's ZIP writer. A link's target must be relative text with forward slashes only (no '/…',
 * 'C:…', '\\' or NUL), and resolve inside the archive's tree as the operating system would resolve
 * it in a folder holding only that tree: '..' may never step above the root, links met on the way
 * are followed (a chain may go in and out of other links but must stay inside), more than
 * MAX_LINK_HOPS links is a loop. Names that do not exist are plain names (a dangling link that
 * stays inside is fine). Every failure is path_outside_target with the link's path.
 *
 * Cost: each link's target is walked once (results are remembered, positions are shared parent
 * pointers, never copied paths), so checking a whole index is linear in its size; recursion is
 * bounded by MAX_LINK_HOPS.
 */

/** Where a resolution stands: an entry (undefined past a missing name) and the way back up. */
type Position = { entry: ArchiveEntry | undefined; name: string; up: Position | undefined };
/** A link that stays inside: where it leads and how many links its resolution followed. */
type Resolved = { position: Position; hops: number };

/**
 * Thrown inside the walk, turned into an ArchiveError naming the link whose own target leads out (a
 * link reached through others is named itself); a loop names the link whose check ran into it.
 */
class Escape {
  constructor(
    readonly parent: Position,
    readonly link: ArchiveSymlink,
    readonly reason: string,
    readonly loop = false,
  ) {}
}

const loopReason = `follows more than ${MAX_LINK_HOPS} links (a loop?)`;

/** Why the target text alone is refused (absolute, drive letter, backslash, NUL, empty), or undefined. */
function badTargetText(target: string): string | undefined {
  if (target === '' || target.includes('\0')) return 'is empty or contains NUL';
  if (target.startsWith('/')) return 'is absolute';
  if (/^[A-Za-z]:/.test(target)) return 'names a drive';
  if (target.includes('\\')) return 'contains a backslash (only / separates names)';
  return undefined;
}

function pathOf(parent: Position, name: string): string {
  const names = [name];
  for (let at: Position | undefined = parent; at?.up !== undefined; at = at.up) names.push(at.name);
  return names.reverse().join('/');
}

function createResolver() {
  const resolved = new Map<ArchiveSymlink, Resolved>();

  /** Resolves `link`, whose directory is `parent`, following at most `budget` links. */
  function resolveLink(parent: Position, link: ArchiveSymlink, budget: number): Resolved {
    const known = resolved.get(link);
    if (known !== undefined) return known;
    const badText = badTargetText(link.target);
    if (badText !== undefined) throw new Escape(parent, link, badText);
    let position = parent;
    let hops = 0;
    for (const piece of link.target.split('/')) {
      if (piece === '' || piece === '.') continue;
      if (piece === '..') {
        if (position.up === undefined) throw new Escape(parent, link, 'leads above the archive root');
        position = position.up;
        continue;
      }
      const entry = position.entry?.kind === 'directory' ? position.entry.entries.get(piece) : undefined;
      if (entry?.kind !== 'symlink') {
        position = { entry, name: piece, up: position };
        continue;
      }
      if (hops + 1 > budget) throw new Escape(parent, link, loopReason, true);
      const next = resolveLink(position, entry, budget - hops - 1);
      hops += 1 + next.hops;
      if (hops > budget) throw new Escape(parent, link, loopReason, true);
      position = next.position;
    }
    const result = { position, hops };
    // Exact and independent of who asked (a link always resolves from its own directory).
    resolved.set(link, result);
    return result;
  }

  return { resolveLink, isDone: (link: ArchiveSymlink) => resolved.has(link) };
}

function outside(escape: Escape): ArchiveError {
  const path = pathOf(escape.parent, escape.link.name);
  return new ArchiveError('path_outside_target', `symlink '${path}' → '${escape.link.target}' ${escape.reason}`, { path });
}

/** Throws path_outside_target for the first symlink (index order) that breaks the rule above. */
export function checkSymlinks(root: ArchiveDirectory): void {
  const resolver = createResolver();
  const stack: { position: Position; entries: Iterator<ArchiveEntry> }[] = [
    { position: { entry: root, name: '', up: undefined }, entries: root.entries.values() },
  ];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const next = top.entries.next();
    if (next.done) {
      stack.pop();
      continue;
    }
    const entry = next.value;
    if (entry.kind === 'directory') {
      stack.push({ position: { entry, name: entry.name, up: top.position }, entries: entry.entries.values() });
    } else if (entry.kind === 'symlink' && !resolver.isDone(entry)) {
      try {
        resolver.resolveLink(top.position, entry, MAX_LINK_HOPS);
      } catch (error) {
        if (!(error instanceof Escape)) throw error;
        throw outside(error.loop ? new Escape(top.position, entry, error.reason) : error);
      }
    }
  }
}
