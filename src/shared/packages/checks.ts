import { MODE_EXECUTABLE } from '../archive/constants.ts';
import { findEntry, walkEntries } from '../archive/tree.ts';
import type { ArchiveDirectory, ArchiveEntry } from '../archive/types.ts';
import { entrypointCandidates, isIndexPage, isWebPage } from './entrypoint-choice.ts';
import {
  ARCHIVE_EXTENSIONS,
  SYSTEM_PACKAGE_EXTENSIONS,
  SYSTEM_PACKAGING_TAGS,
  TAG_SUGGESTIONS,
  WRONG_ENTRYPOINT_EXTENSIONS,
  fileExtension,
} from './extensions.ts';
import { programKey, type ProgramFormat, type ProgramInfo, type ProgramLookup } from './program-detect.ts';
import type { PackageTag } from './tags.ts';

export { applyFix } from './fixes.ts';
export { entrypointCandidates, preferredEntrypoint } from './entrypoint-choice.ts';

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

type PackageWarningCode =
  | 'no_files'
  | 'single_root_directory'
  | 'entrypoint_not_set'
  | 'entrypoint_missing'
  | 'wrong_extension'
  | 'archive_entrypoint'
  | 'html_needs_web'
  | 'web_needs_page'
  | 'extension_suggests_tag'
  | 'header_suggests_tag'
  | 'not_executable';

/**
 * `path` is in path parts like entrypoints; `extension` (no dot), `format` (what the header says) and
 * `tags` fill the message. `blocksCreate`: the package would not start as it is (a native start file
 * without its executable bit): the browser dialog refuses to create it until the fix is applied.
 */
export type PackageWarning = {
  code: PackageWarningCode;
  path?: string[];
  extension?: string;
  format?: ProgramFormat;
  tags?: PackageTag[];
  fix?: PackageFix;
  blocksCreate?: true;
};

export type PackageCheckInput = {
  /** An ArchiveTree (browser, CLI) or an index's root with the package's entrypoint. */
  tree: { root: ArchiveDirectory; entrypoint?: readonly string[] | null };
  tags: readonly string[];
  /** When given (null = not set), wins over tree.entrypoint: for an index checked with a package row. */
  entrypoint?: readonly string[] | null;
  /**
   * Programs recognised by their first bytes, by path (program-detect.ts): an extensionless ELF or a
   * `#!` script is offered as start file, its header suggests tags, and it needs its executable bit
   * whatever the tags say.
   */
  programs?: ProgramLookup;
};

/** Names native start files carry (none, Godot's and Unity's arch suffixes, scripts): they run only when executable. */
const NATIVE_START_EXTENSIONS: ReadonlySet<string> = new Set(['', 'sh', 'command', 'appimage', 'x86_64', 'x86', 'arm64', 'aarch64']);

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

function lookUp(root: ArchiveDirectory, parts: readonly string[]): ArchiveEntry | undefined {
  try {
    return findEntry({ root }, parts);
  } catch {
    return undefined; // A malformed stored path points to nothing.
  }
}

/** A script in a web build (tagged os:web, or beside an index.html) is loaded by the page, not started. */
function isWebScript(root: ArchiveDirectory, parts: string[], extension: string, tags: ReadonlySet<string>): boolean {
  if (!['js', 'mjs', 'cjs'].includes(extension)) return false;
  if (tags.has('os:web')) return true;
  const folder = parts.length > 1 ? lookUp(root, parts.slice(0, -1)) : root;
  return folder?.kind === 'directory' && [...folder.entries.values()].some((entry) => entry.kind === 'file' && isIndexPage(entry.name));
}

/**
 * Whether a start file of this name, in a package of these tags, runs only with its executable bit,
 * when nothing is known of its content (the package page): a Linux or macOS build's, or one without
 * an extension; never one a package manager installs.
 */
export function startFileNeedsExecutable(name: string, tags: readonly string[]): boolean {
  const extension = fileExtension(name);
  if (SYSTEM_PACKAGING_TAGS.some((tag) => tags.includes(tag)) || SYSTEM_PACKAGE_EXTENSIONS.has(extension)) return false;
  return tags.includes('os:linux') || tags.includes('os:macos') || extension === '';
}

/** The tags a program's header names that the package lacks, those the extension suggests already left out. */
function headerTags(program: ProgramInfo, tags: ReadonlySet<string>, suggested: readonly string[]): PackageTag[] {
  if (program.satisfiedBy?.some((tag) => tags.has(tag))) return [];
  return program.tags.filter((tag) => !tags.has(tag) && !suggested.includes(tag));
}

function entrypointWarnings(root: ArchiveDirectory, parts: string[], entry: ArchiveEntry, tags: ReadonlySet<string>, programs: ProgramLookup | undefined): PackageWarning[] {
  const warnings: PackageWarning[] = [];
  const extension = fileExtension(entry.name);
  const program = entry.kind === 'file' ? programs?.get(programKey(parts)) : undefined;
  const pick = (): PackageFix => ({ kind: 'set_entrypoint', candidates: entrypointCandidates(root, { tags: [...tags], programs }) });
  if (WRONG_ENTRYPOINT_EXTENSIONS.has(extension)) warnings.push({ code: 'wrong_extension', path: parts, extension, fix: pick() });
  if (ARCHIVE_EXTENSIONS.has(extension)) warnings.push({ code: 'archive_entrypoint', path: parts, extension, fix: pick() });
  const flagged = warnings.length > 0;
  // A web build starts at a page; suggesting runtime:nodejs for its script would mis-tag it.
  const webScript = isWebScript(root, parts, extension, tags);
  if (webScript || (!flagged && tags.has('os:web') && !isWebPage(entry.name))) {
    warnings.push({ code: 'web_needs_page', path: parts, extension, fix: { kind: 'set_entrypoint', candidates: entrypointCandidates(root, { tags: [...tags], pagesOnly: true, programs }) } });
  }
  const suggestion = webScript ? undefined : TAG_SUGGESTIONS.get(extension);
  let suggested: PackageTag[] = [];
  if (suggestion && !suggestion.satisfiedBy?.some((tag) => tags.has(tag))) {
    suggested = suggestion.tags.filter((tag) => !tags.has(tag));
    if (suggested.length > 0) {
      warnings.push({ code: suggestion.code, path: parts, extension, tags: suggested, fix: { kind: 'add_tags', tags: suggested } });
    }
  }
  const fromHeader = program && !webScript ? headerTags(program, tags, suggested) : [];
  if (program && fromHeader.length > 0) {
    warnings.push({ code: 'header_suggests_tag', path: parts, format: program.format, tags: fromHeader, fix: { kind: 'add_tags', tags: fromHeader } });
  }
  const native = tags.has('os:linux') || tags.has('os:macos');
  const installed = SYSTEM_PACKAGING_TAGS.some((tag) => tags.has(tag)) || SYSTEM_PACKAGE_EXTENSIONS.has(extension);
  if (entry.kind === 'file' && (native || program?.needsExecutable) && !installed && (entry.mode & MODE_EXECUTABLE) === 0) {
    const cannotRun = program?.needsExecutable || (native && NATIVE_START_EXTENSIONS.has(extension));
    warnings.push({ code: 'not_executable', path: parts, fix: { kind: 'set_executable', path: parts }, ...(cannotRun ? { blocksCreate: true as const } : {}) });
  }
  return warnings;
}

/**
 * Spec §5 package checks, in a fixed order: no files (alone: nothing else means anything then),
 * single root directory, then the entrypoint (not set | missing | wrong extension, archive, a web
 * build not starting at a page, tags its extension suggests, tags its header suggests, executable bit).
 * Pure: reads the tree, changes nothing.
 */
export function checkPackage(input: PackageCheckInput): PackageWarning[] {
  const { root } = input.tree;
  if (!hasFile(root)) return [{ code: 'no_files' }];
  const warnings: PackageWarning[] = [];
  const single = singleRootDirectory(root);
  if (single) warnings.push({ code: 'single_root_directory', path: [single.name], fix: { kind: 'explode_root', path: [single.name] } });

  const entrypoint = input.entrypoint !== undefined ? input.entrypoint : input.tree.entrypoint;
  if (!entrypoint || entrypoint.length === 0) {
    warnings.push({ code: 'entrypoint_not_set', fix: { kind: 'set_entrypoint', candidates: entrypointCandidates(root, { tags: input.tags, programs: input.programs }) } });
    return warnings;
  }
  const parts = [...entrypoint];
  const entry = lookUp(root, parts);
  if (entry === undefined || entry.kind === 'directory') {
    warnings.push({ code: 'entrypoint_missing', path: parts, fix: { kind: 'unset_entrypoint' } });
    return warnings;
  }
  warnings.push(...entrypointWarnings(root, parts, entry, new Set(input.tags), input.programs));
  return warnings;
}
