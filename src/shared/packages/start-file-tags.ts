import type { ArchiveDirectory } from '../archive/types.ts';
import { preferredEntrypoint } from './entrypoint-choice.ts';
import { programKey, type ProgramFormat, type ProgramLookup } from './program-detect.ts';
import type { PackageTag } from './tags.ts';

/**
 * The tags the start file's header names (os, arch, bits), for an untagged package's hint: the given
 * start file, else the one the checks would offer first. Undefined when it is no recognised program or
 * its header names nothing.
 */
export function startFileTags(
  root: ArchiveDirectory,
  entrypoint: readonly string[] | null,
  programs: ProgramLookup,
): { path: string[]; format: ProgramFormat; tags: PackageTag[] } | undefined {
  const path = entrypoint && entrypoint.length > 0 ? [...entrypoint] : preferredEntrypoint(root, [], programs);
  if (!path) return undefined;
  const program = programs.get(programKey(path));
  if (!program || program.tags.length === 0) return undefined;
  return { path, format: program.format, tags: [...program.tags] };
}
