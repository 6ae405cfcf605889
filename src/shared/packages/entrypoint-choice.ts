import { MODE_EXECUTABLE } from '../archive/constants.ts';
import { walkEntries } from '../archive/tree.ts';
import type { ArchiveDirectory, ArchiveFile } from '../archive/types.ts';
import { ARCHIVE_EXTENSIONS, TAG_SUGGESTIONS, WRONG_ENTRYPOINT_EXTENSIONS, fileExtension } from './extensions.ts';
import { programKey, type ProgramInfo, type ProgramLookup } from './program-detect.ts';

/**
 * What a likely start file is, best first. A folder's index.html starts a web build, so it comes
 * before programs: a web export often carries files with the executable bit (copied from a FAT or NTFS
 * drive) but never a real launcher. Scripts come last: in a web build game.js is loaded by the page,
 * and picking it would then suggest runtime:nodejs.
 */
const KIND_RANK = { index_page: 0, program: 1, launcher: 2, page: 3, script: 4 } as const;
type CandidateKind = keyof typeof KIND_RANK;

const PAGE_EXTENSIONS: ReadonlySet<string> = new Set(['html', 'htm']);
const SCRIPT_EXTENSIONS: ReadonlySet<string> = new Set(['js', 'mjs', 'cjs']);
const LAUNCHER_EXTENSIONS: ReadonlySet<string> = new Set(['sh', 'bat', 'cmd', 'jar']);
const NATIVE_TAGS: readonly string[] = ['os:linux', 'os:macos'];

const MAX_CANDIDATES = 10;

export function isWebPage(name: string): boolean {
  return PAGE_EXTENSIONS.has(fileExtension(name));
}

export function isIndexPage(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === 'index.html' || lower === 'index.htm';
}

/**
 * undefined: not a likely start file (data, libraries, archives, or nothing that says "program").
 * `program` is what its first bytes say (program-detect.ts): an extensionless ELF is a program, a
 * `#!` script a launcher, a shared object none, whatever its mode.
 */
function kindOf(file: ArchiveFile, program: ProgramInfo | undefined): CandidateKind | undefined {
  const extension = fileExtension(file.name);
  if (WRONG_ENTRYPOINT_EXTENSIONS.has(extension) || ARCHIVE_EXTENSIONS.has(extension)) return undefined;
  if (PAGE_EXTENSIONS.has(extension)) return isIndexPage(file.name) ? 'index_page' : 'page';
  if (SCRIPT_EXTENSIONS.has(extension)) return 'script';
  if (program && !program.startable) return undefined;
  if (LAUNCHER_EXTENSIONS.has(extension) || program?.format === 'script') return 'launcher';
  if (program || TAG_SUGGESTIONS.has(extension) || (file.mode & MODE_EXECUTABLE) !== 0) return 'program';
  return undefined;
}

/** The operating systems a recognised program runs on, by its header; undefined when it names none. */
function programSystems(program: ProgramInfo | undefined): string[] | undefined {
  if (!program) return undefined;
  const systems = [...program.tags.filter((tag) => tag.startsWith('os:')), ...(program.satisfiedBy ?? [])];
  return systems.length > 0 ? systems : undefined;
}

/**
 * The file suits the selected tags: its header names one of their systems, its extension suggests one
 * of them, or it is a native program for Linux or macOS.
 */
function fitsTags(file: ArchiveFile, kind: CandidateKind, tags: ReadonlySet<string>, program: ProgramInfo | undefined): boolean {
  const systems = programSystems(program);
  if (systems) return systems.some((tag) => tags.has(tag));
  const suggestion = TAG_SUGGESTIONS.get(fileExtension(file.name));
  if (suggestion) return suggestion.tags.some((tag) => tags.has(tag)) || (suggestion.satisfiedBy ?? []).some((tag) => tags.has(tag));
  return kind === 'program' && NATIVE_TAGS.some((tag) => tags.has(tag));
}

export type CandidateOptions = {
  /** The package's selected tags: files that suit them come first (os:web → pages, os:windows → .exe). */
  tags?: readonly string[];
  limit?: number;
  /** Only web pages (for a web build whose start file is not one). */
  pagesOnly?: boolean;
  /** Programs recognised by their content, by path (program-detect.ts). */
  programs?: ProgramLookup;
};

/**
 * Likely start files, best first: those that suit the tags, then the shallowest, then by kind (see
 * KIND_RANK), then in index order. The browser dialog preselects the first; the CLI names it.
 */
export function entrypointCandidates(root: ArchiveDirectory, options: CandidateOptions = {}): string[][] {
  const tags = new Set(options.tags ?? []);
  const found: { parts: string[]; fit: number; rank: number; order: number }[] = [];
  for (const { entry, parts } of walkEntries(root)) {
    if (entry.kind !== 'file') continue;
    const program = options.programs?.get(programKey(parts));
    const kind = kindOf(entry, program);
    if (kind === undefined || (options.pagesOnly && kind !== 'index_page' && kind !== 'page')) continue;
    found.push({ parts, fit: fitsTags(entry, kind, tags, program) ? 0 : 1, rank: KIND_RANK[kind], order: found.length });
  }
  found.sort((a, b) => a.fit - b.fit || a.parts.length - b.parts.length || a.rank - b.rank || a.order - b.order);
  return found.slice(0, options.limit ?? MAX_CANDIDATES).map((item) => item.parts);
}

/** The start file a new package gets offered first; undefined when nothing looks like one. */
export function preferredEntrypoint(root: ArchiveDirectory, tags: readonly string[] = [], programs?: ProgramLookup): string[] | undefined {
  return entrypointCandidates(root, { tags, limit: 1, programs })[0];
}
