import { compareNames, type ArchiveDirectory, type ArchiveEntry } from '../../../shared/archive/index.ts';

export type TreeRow = { entry: ArchiveEntry; parts: string[]; depth: number; key: string };

/** Display order: folders first, then files and links, each by name. */
function displayOrder(directory: ArchiveDirectory): ArchiveEntry[] {
  return [...directory.entries.values()].sort((a, b) => {
    const folderA = a.kind === 'directory' ? 0 : 1;
    const folderB = b.kind === 'directory' ? 0 : 1;
    return folderA - folderB || compareNames(a.name, b.name);
  });
}

/** The rows a reader sees: every entry whose folders above it are all expanded. */
export function visibleRows(root: ArchiveDirectory, isExpanded: (row: TreeRow) => boolean): TreeRow[] {
  const rows: TreeRow[] = [];
  const visit = (directory: ArchiveDirectory, prefix: string[]) => {
    for (const entry of displayOrder(directory)) {
      const parts = [...prefix, entry.name];
      const row: TreeRow = { entry, parts, depth: parts.length, key: parts.join('/') };
      rows.push(row);
      if (entry.kind === 'directory' && isExpanded(row)) visit(entry, parts);
    }
  };
  visit(root, []);
  return rows;
}

/** Every folder except `moving` and those inside it: where `moving` may go. */
export function moveTargets(root: ArchiveDirectory, moving: readonly string[]): string[][] {
  const targets: string[][] = [[]];
  const movingKey = moving.join('/');
  const visit = (directory: ArchiveDirectory, prefix: string[]) => {
    for (const entry of displayOrder(directory)) {
      if (entry.kind !== 'directory') continue;
      const parts = [...prefix, entry.name];
      const key = parts.join('/');
      if (key === movingKey || key.startsWith(`${movingKey}/`)) continue;
      targets.push(parts);
      visit(entry, parts);
    }
  };
  visit(root, []);
  const parentKey = moving.slice(0, -1).join('/');
  return targets.filter((parts) => parts.join('/') !== parentKey);
}

/** Folders start expanded at the top level only, so a big build does not render thousands of rows. */
export const expandedByDefault = (row: TreeRow): boolean => row.depth === 1;
