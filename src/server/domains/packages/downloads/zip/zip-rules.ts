import { ArchiveError, checkSymlinks, describeBadName, describeLongPath, isArchiveError, type ArchiveIndex } from '../../../../../shared/archive/index.ts';

/**
 * What the server's ZIP writer refuses to write, whatever the index it is given says. Finalize's
 * reader already refuses such packages; this guards indexes stored before a rule existed (and any
 * built in memory), so a package the reader would refuse is never turned into a ZIP:
 * - a symlink breaking the shared rule (shared/archive/symlink-check.ts). unzip creates links as they
 *   are: `saves -> ../../escaped` in one version and `saves/pwned.txt` in the next, both unzipped
 *   with -o into one folder, writes outside it.
 * - a name or path beyond the shared limits (255 / 4096 UTF-8 bytes), and anything the ZIP fields
 *   cannot hold (headers.ts checks the 16- and 32-bit fields themselves).
 *
 * The whole ZIP is refused rather than the entry skipped: a ZIP that silently lacks a file its package
 * lists is a broken game nobody notices, while a refusal is an error with the package's path in the
 * server log (the download answers unexpected_error, the package_prepare job fails with the message),
 * so an operator sees it and the developer uploads the package again.
 */
export function checkZipIndex(index: ArchiveIndex): void {
  checkSymlinks(index.root);
}

const encoder = new TextEncoder();

/** The UTF-8 bytes of an entry's ZIP name ('a/b', '/'-terminated for directories), checked against the shared limits. */
export function zipEntryName(name: string, path: string, directory: boolean): Uint8Array {
  const bytes = encoder.encode(directory ? `${path}/` : path);
  const problem = describeBadName(name) ?? describeLongPath(bytes.byteLength - (directory ? 1 : 0));
  if (problem !== undefined) throw new ArchiveError('invalid_entry', `cannot be written to a ZIP: ${problem}`, { path });
  return bytes;
}

/** A refusal as it reaches the log and the package_prepare job's error: the catalogued code and the path up front. */
export function zipRefusal(error: unknown): unknown {
  if (!isArchiveError(error)) return error;
  const details = error.path === undefined ? { cause: error } : { cause: error, path: error.path };
  return new ArchiveError(error.code, `the package's ZIP is refused (${error.code}): ${error.message}`, details);
}
