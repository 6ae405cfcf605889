import { MODE_EXECUTABLE } from '../archive/constants.ts';
import { findEntry, walkEntries } from '../archive/tree.ts';
import type { ArchiveDirectory, ArchiveEntry } from '../archive/types.ts';
import {
  ARCHIVE_EXTENSIONS,
  SYSTEM_PACKAGE_EXTENSIONS,
  SYSTEM_PACKAGING_TAGS,
  TAG_SUGGESTIONS,
  WRONG_ENTRYPOINT_EXTENSIONS,
  fileExtension,
} from './extensions.ts';
import type { PackageTag } from './tags.ts';

export { applyFix } from './fixes.ts';

/**
 * A one-click fix as data: the browser dialog and the CLI show it and apply it with applyFix().
 * set_entrypoint carries likely files in `candidates`; the UI lets the user pick and passes `path`.
 */
export type PackageFix =
  | { kind: 'add_tags'; tags: PackageTag[] }
  | { kind: 'set_executable'; path: string[] }
  | { kind: 'explode_root'; path: string[] }
  | { kind: 'set_entrypoint'; candidates: string[][]; path?: string[] }
  | { kind: 'unset_entrypoint' };

export type PackageWarningCode =
  | 'no_files'
  | 'single_root_directory'
  | 'entrypoint_not_set'
  | 'entrypoint_missing'
  | 'wrong_extension'
  | 'archive_entrypoint'
  | 'html_needs_web'
  | 'extension_suggests_tag'
  | 'not_executable';

/** `path` is in path parts like entrypoints; `extension` (no dot) and `tags` fill the message. */
export type PackageWarning = {
  code: PackageWarningCode;
  path?: string[];
  extension?: string;
  tags?: PackageTag[];
  fix?: PackageFix;
};

export type PackageCheckInput = {
  /** An ArchiveTree (browser, CLI) or an index's root with the package's entrypoint. */
  tree: { root: ArchiveDirectory; entrypoint?: readonly string[] | null };
  tags: readonly string[];
  /** When given (null = not set), wins over tree.entrypoint: for an index checked with a package row. */
  entrypoint?: readonly string[] | null;
};

const MAX_CANDIDATES = 10;

function hasFile(root: ArchiveDirectory): boolean {
  for (const { entry } of walkEntries(root)) if (entry.kind === 'file') return true;
  return false;
}

/** A macOS app bundle is a folder and is expected to be the one thing at the top. */
function singleRootDirectory(root: ArchiveDirectory): ArchiveDirectory | undefined {
  if (root.entries.size !== 1) return undefined;
  const [only] = root.entries.values();
  if (only?.kind !== 'directory' || fileExtension(only.name) === 'app') return undefined;
  return only;
}

/**
 * Files that look like a program, shallowest first, then in index order: those with an extension
 * that implies a platform (index.html, game.exe, run.sh...) or the executable bit.
 */
export function entrypointCandidates(root: ArchiveDirectory, limit = MAX_CANDIDATES): string[][] {
  const found: string[][] = [];
  for (const { entry, parts } of walkEntries(root)) {
    if (entry.kind !== 'file') continue;
    const extension = fileExtension(entry.name);
    if (WRONG_ENTRYPOINT_EXTENSIONS.has(extension) || ARCHIVE_EXTENSIONS.has(extension)) continue;
    if (TAG_SUGGESTIONS.has(extension) || (entry.mode & MODE_EXECUTABLE) !== 0) found.push(parts);
  }
  // Stable sort: equal depths keep index order.
  return found.sort((a, b) => a.length - b.length).slice(0, limit);
}

function lookUp(root: ArchiveDirectory, parts: readonly string[]): ArchiveEntry | undefined {
  try {
    return findEntry({ root }, parts);
  } catch {
    return undefined; // A malformed stored path points to nothing.
  }
}

function entrypointWarnings(root: ArchiveDirectory, parts: string[], entry: ArchiveEntry, tags: ReadonlySet<string>): PackageWarning[] {
  const warnings: PackageWarning[] = [];
  const extension = fileExtension(entry.name);
  const pick = (): PackageFix => ({ kind: 'set_entrypoint', candidates: entrypointCandidates(root) });
  if (WRONG_ENTRYPOINT_EXTENSIONS.has(extension)) warnings.push({ code: 'wrong_extension', path: parts, extension, fix: pick() });
  if (ARCHIVE_EXTENSIONS.has(extension)) warnings.push({ code: 'archive_entrypoint', path: parts, extension, fix: pick() });
  const suggestion = TAG_SUGGESTIONS.get(extension);
  if (suggestion && !suggestion.satisfiedBy?.some((tag) => tags.has(tag))) {
    const missing = suggestion.tags.filter((tag) => !tags.has(tag));
    if (missing.length > 0) {
      warnings.push({ code: suggestion.code, path: parts, extension, tags: missing, fix: { kind: 'add_tags', tags: missing } });
    }
  }
  const native = tags.has('os:linux') || tags.has('os:macos');
  const installed = SYSTEM_PACKAGING_TAGS.some((tag) => tags.has(tag)) || SYSTEM_PACKAGE_EXTENSIONS.has(extension);
  if (entry.kind === 'file' && native && !installed && (entry.mode & MODE_EXECUTABLE) === 0) {
    warnings.push({ code: 'not_executable', path: parts, fix: { kind: 'set_executable', path: parts } });
  }
  return warnings;
}

/**
 * Spec §5 package checks, in a fixed order: no files (alone: nothing else means anything then),
 * single root directory, then the entrypoint (not set | missing | wrong extension, archive, tags it
 * suggests, executable bit). Pure: reads the tree, changes nothing.
 */
export function checkPackage(input: PackageCheckInput): PackageWarning[] {
  const { root } = input.tree;
  if (!hasFile(root)) return [{ code: 'no_files' }];
  const warnings: PackageWarning[] = [];
  const single = singleRootDirectory(root);
  if (single) warnings.push({ code: 'single_root_directory', path: [single.name], fix: { kind: 'explode_root', path: [single.name] } });

  const entrypoint = input.entrypoint !== undefined ? input.entrypoint : input.tree.entrypoint;
  if (!entrypoint || entrypoint.length === 0) {
    warnings.push({ code: 'entrypoint_not_set', fix: { kind: 'set_entrypoint', candidates: entrypointCandidates(root) } });
    return warnings;
  }
  const parts = [...entrypoint];
  const entry = lookUp(root, parts);
  if (entry === undefined || entry.kind === 'directory') {
    warnings.push({ code: 'entrypoint_missing', path: parts, fix: { kind: 'unset_entrypoint' } });
    return warnings;
  }
  warnings.push(...entrypointWarnings(root, parts, entry, new Set(input.tags)));
  return warnings;
}
