import { MODE_EXECUTABLE } from '../archive/constants.ts';
import { walkEntries } from '../archive/tree.ts';
import type { ArchiveDirectory, ArchiveFile, FileSource } from '../archive/types.ts';
import { createLimiter } from '../limiter.ts';
import { detectProgram, PROGRAM_SNIFF_BYTES, programKey, type ProgramInfo } from './program-detect.ts';

/** The first `size` bytes of a source: a Blob (a browser File, Bun.file) is sliced, anything else streamed and cancelled. */
export async function readSourceHead(source: FileSource, size = PROGRAM_SNIFF_BYTES): Promise<Uint8Array> {
  if (typeof Blob !== 'undefined' && source instanceof Blob) return new Uint8Array(await source.slice(0, size).arrayBuffer());
  const reader = source.stream().getReader();
  const head = new Uint8Array(Math.min(size, source.size));
  let filled = 0;
  try {
    while (filled < head.length) {
      const { value, done } = await reader.read();
      if (done) break;
      const take = Math.min(value.length, head.length - filled);
      head.set(value.subarray(0, take), filled);
      filled += take;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return head.subarray(0, filled);
}

/** Files read at once: heads are small, the limit is open files (CLI) and the page's responsiveness. */
const SNIFF_CONCURRENCY = 8;

/**
 * The programs among a tree's files, by path (ProgramLookup), from each file's first bytes.
 * `readHead` defaults to reading the file's source; files without one (an index's) are skipped.
 */
export async function findPrograms(
  root: ArchiveDirectory,
  readHead: (file: ArchiveFile, parts: string[]) => Promise<Uint8Array | undefined> = async (file) => (file.source ? readSourceHead(file.source) : undefined),
): Promise<Map<string, ProgramInfo>> {
  const files: { file: ArchiveFile; parts: string[] }[] = [];
  for (const { entry, parts } of walkEntries(root)) if (entry.kind === 'file' && entry.size > 0) files.push({ file: entry, parts });
  const found = new Map<string, ProgramInfo>();
  const limiter = createLimiter(SNIFF_CONCURRENCY);
  await Promise.all(
    files.map(({ file, parts }) =>
      limiter.run(async () => {
        const head = await readHead(file, parts);
        const program = head ? detectProgram(head) : undefined;
        if (program) found.set(programKey(parts), program);
      }),
    ),
  );
  return found;
}

/**
 * Sets the executable bit of every recognised program that cannot run without it (ELF, Mach-O, `#!`
 * scripts) and returns the paths it changed, in index order.
 */
export function markPrograms(root: ArchiveDirectory, programs: ReadonlyMap<string, ProgramInfo>): string[][] {
  const marked: string[][] = [];
  for (const { entry, parts } of walkEntries(root)) {
    if (entry.kind !== 'file' || (entry.mode & MODE_EXECUTABLE) !== 0) continue;
    if (!programs.get(programKey(parts))?.needsExecutable) continue;
    entry.mode |= MODE_EXECUTABLE;
    marked.push(parts);
  }
  return marked;
}
