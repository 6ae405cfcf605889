import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, readlinkSync, renameSync, rmdirSync, rmSync, symlinkSync, unlinkSync, type Stats } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { EngineError } from './errors.ts';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/**
 * File-system operations inside a workdir that never go through a link found there: a previous
 * version's link (or one planted by hand) must not redirect a write outside. Every operation checks
 * the path's folders with lstat (each real folder is remembered for the rest of the pass) and acts on
 * the last name itself: rename and unlink replace a link rather than follow it, mkdir and symlink fail on
 * an existing name, chmod goes through a descriptor opened with O_NOFOLLOW. Names come from a decoded
 * index (no '..', '/', NUL: the shared name rules), and every joined path is checked to stay inside.
 */
export class SafeTree {
  readonly root: string;
  /** Keys ('a/b') of folders seen to be real folders during this pass. */
  private readonly folders = new Set<string>(['']);

  constructor(root: string) {
    this.root = resolve(root);
  }

  pathOf(parts: readonly string[]): string {
    const path = join(this.root, ...parts);
    if (parts.length === 0 || !path.startsWith(this.root + sep) || parts.some((part) => part === '' || part === '.' || part === '..' || part.includes('/') || part.includes(sep))) {
      throw new EngineError('bad_folders', `'${parts.join('/')}' would leave the workdir`, { path: parts.join('/') });
    }
    return path;
  }

  lstat(parts: readonly string[]): Stats | undefined {
    try {
      return lstatSync(this.pathOf(parts));
    } catch (error) {
      const code = errno(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
  }

  /** Whether every folder above `parts` is a real folder (not a link, not a file, present). */
  parentsReal(parts: readonly string[]): boolean {
    for (let i = 1; i < parts.length; i++) {
      const key = parts.slice(0, i).join('/');
      if (this.folders.has(key)) continue;
      const stats = this.lstat(parts.slice(0, i));
      if (!stats?.isDirectory()) return false;
      this.folders.add(key);
    }
    return true;
  }

  /** Makes `parts` (and the folders above) real folders, replacing links, files or anything else in the way. */
  ensureFolder(parts: readonly string[]): boolean {
    let created = false;
    for (let i = 1; i <= parts.length; i++) {
      const key = parts.slice(0, i).join('/');
      if (this.folders.has(key)) continue;
      const here = parts.slice(0, i);
      const stats = this.lstat(here);
      if (stats?.isDirectory()) {
        this.folders.add(key);
        continue;
      }
      if (stats) this.removeAt(here, stats);
      mkdirSync(this.pathOf(here), { mode: 0o755 });
      this.folders.add(key);
      created = true;
    }
    return created;
  }

  private forget(key: string): void {
    this.folders.delete(key);
    for (const known of [...this.folders]) if (known.startsWith(`${key}/`)) this.folders.delete(known);
  }

  private removeAt(parts: readonly string[], stats: Stats): void {
    const path = this.pathOf(parts);
    if (stats.isDirectory()) {
      // rm does not follow links inside the folder (it unlinks them).
      rmSync(path, { recursive: true, force: true });
      this.forget(parts.join('/'));
    } else {
      unlinkSync(path);
    }
  }

  /** Removes whatever is at `parts` (a folder with its contents); nothing when a folder above is not real. */
  remove(parts: readonly string[]): void {
    if (!this.parentsReal(parts)) return;
    const stats = this.lstat(parts);
    if (stats) this.removeAt(parts, stats);
  }

  /** Removes the file or link at `parts`; a folder there (made by a player) stays. */
  removeFileOrLink(parts: readonly string[]): void {
    if (!this.parentsReal(parts)) return;
    const stats = this.lstat(parts);
    if (stats && !stats.isDirectory()) unlinkSync(this.pathOf(parts));
  }

  /** Removes a folder when it is empty (files a player added keep it). */
  removeEmptyFolder(parts: readonly string[]): void {
    if (!this.parentsReal(parts)) return;
    const stats = this.lstat(parts);
    if (!stats?.isDirectory()) return;
    try {
      rmdirSync(this.pathOf(parts));
      this.forget(parts.join('/'));
    } catch (error) {
      const code = errno(error);
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw error;
    }
  }

  /**
   * Moves `from` (a file outside the workdir, on the same file system) to `parts`: folders above made
   * real, a folder in the way removed; rename replaces a file or link there atomically.
   */
  moveInto(from: string, parts: readonly string[]): void {
    this.ensureFolder(parts.slice(0, -1));
    const stats = this.lstat(parts);
    if (stats?.isDirectory()) this.removeAt(parts, stats);
    renameSync(from, this.pathOf(parts));
  }

  /** Makes `parts` a link to `target` unless it already is one. Returns whether it changed anything. */
  link(parts: readonly string[], target: string): boolean {
    this.ensureFolder(parts.slice(0, -1));
    const stats = this.lstat(parts);
    if (stats?.isSymbolicLink() && readlinkSync(this.pathOf(parts)) === target) return false;
    if (stats) this.removeAt(parts, stats);
    symlinkSync(target, this.pathOf(parts));
    return true;
  }

  /**
   * Opens a regular file of the workdir for reading, never through a link (last name: O_NOFOLLOW;
   * folders above: checked) and never blocking on a FIFO. Undefined when it is not a regular file.
   */
  openRead(parts: readonly string[]): { fd: number; size: number; mode: number } | undefined {
    if (!this.parentsReal(parts)) return undefined;
    let fd: number;
    try {
      fd = openSync(this.pathOf(parts), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch {
      return undefined;
    }
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      closeSync(fd);
      return undefined;
    }
    return { fd, size: stats.size, mode: stats.mode & 0o7777 };
  }

  /** Sets a regular file's permission bits (through a descriptor: a link there is not followed). Returns whether they changed. */
  setMode(parts: readonly string[], mode: number): boolean {
    const opened = this.openRead(parts);
    if (!opened) return false;
    try {
      if ((opened.mode & 0o777) === mode) return false;
      fchmodSync(opened.fd, mode);
      return true;
    } finally {
      closeSync(opened.fd);
    }
  }
}
