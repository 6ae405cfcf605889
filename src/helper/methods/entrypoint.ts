import { chmod, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { HelperError } from '../errors.ts';

/** Whether `child` is `parent` or inside it (both real, absolute paths). */
export function isInside(parent: string, child: string): boolean {
  const path = relative(parent, child);
  return path === '' || (!path.startsWith(`..${sep}`) && path !== '..' && !isAbsolute(path));
}

/**
 * The real path of a workdir's entrypoint: every part a plain name (no '..', no separators, not
 * absolute), the file regular and, after every symlink is followed, still inside the workdir.
 */
export async function resolveEntrypoint(dir: string, parts: string[]): Promise<string> {
  const refuse = (why: string) => new HelperError('bad_entrypoint', `The entrypoint ${parts.join('/')} ${why}`, { entrypoint: parts.join('/') });
  if (parts.length === 0) throw new HelperError('bad_entrypoint', 'This package names no entrypoint: open its folder and start it yourself', { entrypoint: '' });
  for (const part of parts) {
    if (part === '' || part === '.' || part === '..' || /[/\\\u0000]/.test(part) || isAbsolute(part) || /^[A-Za-z]:/.test(part)) throw refuse('is not a path inside the workdir');
  }
  let realDir: string;
  let realFile: string;
  try {
    realDir = await realpath(dir);
    realFile = await realpath(join(dir, ...parts));
  } catch {
    throw refuse('is missing: repair the workdir');
  }
  if (!isInside(realDir, realFile) || realFile === realDir) throw refuse('leaves the workdir (a link to somewhere else)');
  const stats = await stat(realFile);
  if (!stats.isFile()) throw refuse('is not a file');
  return realFile;
}

/** Lets the user run the file (Linux, macOS): whoever may read it may execute it. */
export async function makeExecutable(file: string): Promise<void> {
  if (process.platform === 'win32') return;
  const { mode } = await stat(file);
  const wanted = mode | ((mode & 0o444) >> 2) | 0o100;
  if ((wanted & 0o7777) !== (mode & 0o7777)) await chmod(file, wanted & 0o7777);
}
