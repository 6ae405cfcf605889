import { findEntry, MODE_EXECUTABLE, walkEntries, type ArchiveDirectory, type ArchiveFile, type ArchiveTree, type FileSource } from '../../../shared/archive/index.ts';
import { detectProgram, programKey, type ProgramInfo, type ProgramLookup } from '../../../shared/packages/program-detect.ts';
import { readSourceHead } from '../../../shared/packages/tree-programs.ts';
import { createLimiter } from '../../../shared/limiter.ts';

/**
 * A browser hands over files without modes, so the dialog decides the executable bits itself: a file
 * whose first bytes need the bit (ELF, Mach-O, `#!` script) gets it, and on an update a file gets the
 * bit its path had in the base package. A bit the developer set or cleared (the row's menu, a check's
 * fix) is theirs and never changed again. What each file's bit came from is kept beside the tree, by
 * file object (moves and renames keep it).
 */

/** What each picked source's head says: null when it is no program (or could not be read). */
const sniffed = new WeakMap<FileSource, ProgramInfo | null>();
const chosen = new WeakSet<ArchiveFile>();
const detected = new WeakSet<ArchiveFile>();
const inherited = new WeakSet<ArchiveFile>();

const SNIFF_CONCURRENCY = 8;

/**
 * Reads the head of each source not read yet, a few at a time (a limit per pick: a file that never
 * answers holds up only its own pick). A file that cannot be read is no program here: the index says why.
 */
export async function sniffSources(sources: readonly FileSource[]): Promise<void> {
  const limiter = createLimiter(SNIFF_CONCURRENCY);
  await Promise.all(
    sources.map((source) =>
      sniffed.has(source)
        ? undefined
        : limiter.run(async () => {
            const head = await readSourceHead(source).catch(() => undefined);
            sniffed.set(source, (head && detectProgram(head)) ?? null);
          }),
    ),
  );
}

function* filesOf(root: ArchiveDirectory): Generator<{ file: ArchiveFile; parts: string[] }> {
  for (const { entry, parts } of walkEntries(root)) if (entry.kind === 'file') yield { file: entry, parts };
}

/** True while a file of the tree has not been read yet: its bit may still change, Create waits. */
export function hasUnsniffed(tree: ArchiveTree): boolean {
  for (const { file } of filesOf(tree.root)) if (file.source && file.size > 0 && !sniffed.has(file.source)) return true;
  return false;
}

/** The tree's recognised programs by path, for the checks. */
export function programsOf(tree: ArchiveTree): ProgramLookup {
  const programs = new Map<string, ProgramInfo>();
  for (const { file, parts } of filesOf(tree.root)) {
    const program = file.source ? sniffed.get(file.source) : undefined;
    if (program) programs.set(programKey(parts), program);
  }
  return programs;
}

/** The developer set this file's bit: the dialog leaves it alone from now on. */
export function chooseMode(tree: ArchiveTree, parts: readonly string[]): void {
  const entry = findEntry(tree, parts);
  if (entry?.kind === 'file') chosen.add(entry);
}

function executableInBase(base: ArchiveDirectory | null, parts: readonly string[]): boolean {
  if (!base) return false;
  try {
    const entry = findEntry({ root: base }, parts);
    return entry?.kind === 'file' && (entry.mode & MODE_EXECUTABLE) !== 0;
  } catch {
    return false;
  }
}

/**
 * Brings the bits the dialog decides up to date with what is known now (the heads read, the base
 * package's index, null without one); returns whether anything changed, changing nothing when `apply`
 * is false. A bit taken from a base is taken back when the base changes to one without it.
 */
export function syncModes(tree: ArchiveTree, base: ArchiveDirectory | null, apply: boolean): boolean {
  let changed = false;
  for (const { file, parts } of filesOf(tree.root)) {
    if (chosen.has(file)) continue;
    const executable = (file.mode & MODE_EXECUTABLE) !== 0;
    const program = file.source ? sniffed.get(file.source) : undefined;
    let want: boolean;
    if (program?.needsExecutable) want = true;
    else if (executableInBase(base, parts)) want = true;
    else if (inherited.has(file) || detected.has(file)) want = false;
    else continue;
    if (want === executable) continue;
    changed = true;
    if (!apply) continue;
    file.mode = want ? file.mode | MODE_EXECUTABLE : file.mode & ~MODE_EXECUTABLE;
    inherited.delete(file);
    detected.delete(file);
    if (want) (program?.needsExecutable ? detected : inherited).add(file);
  }
  return changed;
}
