import { ArchiveError } from './errors.ts';
import type { PathInput } from './types.ts';
import { MAX_DEPTH } from './constants.ts';

const loneSurrogate = /[\uD800-\uDFFF]/u;

/** Why a single name is unusable, or undefined when it is fine. Shared by the tree and the index reader. */
export function describeBadName(name: string): string | undefined {
  if (name === '') return 'empty name';
  if (name === '.' || name === '..') return `name '${name}'`;
  if (name.includes('\0')) return 'name contains NUL';
  if (name.includes('/') || name.includes('\\')) return 'name contains a path separator';
  // A lone surrogate would be written as U+FFFD, so two different names could collide on disk.
  if (loneSurrogate.test(name)) return 'name is not valid Unicode';
  return undefined;
}

/** 'a\\b/c' → ['a', 'b', 'c']; absolute paths, empty parts, '.', '..' and NUL are refused. */
export function splitPath(path: PathInput): string[] {
  let parts: string[];
  if (typeof path === 'string') {
    const normalised = path.replaceAll('\\', '/');
    if (normalised.startsWith('/') || /^[A-Za-z]:\//.test(normalised)) {
      throw new ArchiveError('invalid_path', `absolute path '${path}'`, { path });
    }
    parts = normalised === '' ? [] : normalised.split('/');
  } else {
    parts = path.flatMap((part) => part.replaceAll('\\', '/').split('/'));
  }
  if (parts.length > MAX_DEPTH) {
    throw new ArchiveError('invalid_path', `path deeper than ${MAX_DEPTH}`, { path: parts.join('/') });
  }
  for (const part of parts) {
    const problem = describeBadName(part);
    if (problem !== undefined) throw new ArchiveError('invalid_path', problem, { path: parts.join('/') });
  }
  return parts;
}

export function joinPath(parts: readonly string[]): string {
  return parts.join('/');
}
