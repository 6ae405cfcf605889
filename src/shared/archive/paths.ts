import { ArchiveError } from './errors.ts';
import type { PathInput } from './types.ts';
import { utf8Length } from './bytes.ts';
import { MAX_DEPTH, MAX_NAME_BYTES, MAX_PATH_BYTES } from './constants.ts';

const loneSurrogate = /[\uD800-\uDFFF]/u;

/**
 * Bidirectional controls (embeddings, overrides, isolates U+202A–U+202E, U+2066–U+2069) and the
 * invisible direction marks (U+200E, U+200F, U+061C): they make a name display as another one
 * ('photo\u202Egnp.exe' shows as 'photoexe.png') or two names look alike, so no file name may hold one.
 */
export const bidiControlClass = '\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069';
const bidiControl = new RegExp(`[${bidiControlClass}]`);
const invisible = new RegExp(`[\u0000-\u001f\u007f-\u009f${bidiControlClass}]`, 'g');

/** True when `text` holds a bidirectional control (describeBadName refuses such names). */
export function hasBidiControl(text: string): boolean {
  return bidiControl.test(text);
}

const codeOf = (char: string) => char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');

/** A name or path as it may be shown: controls and bidi controls written as \uXXXX, so it reads as it is. */
export function shownPath(text: string): string {
  return text.replace(invisible, (char) => `\\u${codeOf(char)}`);
}

/** Why a single name is unusable, or undefined when it is fine. Shared by the tree and the index reader. */
export function describeBadName(name: string): string | undefined {
  if (name === '') return 'empty name';
  if (name === '.' || name === '..') return `name '${name}'`;
  if (name.includes('\0')) return 'name contains NUL';
  if (name.includes('/') || name.includes('\\')) return 'name contains a path separator';
  const bytes = utf8Length(name);
  if (bytes > MAX_NAME_BYTES) return `name is ${bytes} bytes long, above the limit of ${MAX_NAME_BYTES}`;
  // A lone surrogate would be written as U+FFFD, so two different names could collide on disk.
  if (loneSurrogate.test(name)) return 'name is not valid Unicode';
  const control = bidiControl.exec(name)?.[0];
  if (control !== undefined) {
    return `name '${shownPath(name)}' holds the bidirectional control U+${codeOf(control)}, which can make it display as another name`;
  }
  return undefined;
}

/** Why a whole path of `bytes` UTF-8 bytes is unusable, or undefined when it is fine. */
export function describeLongPath(bytes: number): string | undefined {
  return bytes > MAX_PATH_BYTES ? `path is ${bytes} bytes long, above the limit of ${MAX_PATH_BYTES}` : undefined;
}

/** Why a symlink target is unusable as text (where it leads is symlink-check.ts's job), or undefined. */
export function describeBadTarget(target: string): string | undefined {
  if (target === '' || target.includes('\0')) return 'symlink target is empty or contains NUL';
  const bytes = utf8Length(target);
  if (bytes > MAX_PATH_BYTES) return `symlink target is ${bytes} bytes long, above the limit of ${MAX_PATH_BYTES}`;
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
  const tooLong = describeLongPath(parts.reduce((sum, part) => sum + utf8Length(part), Math.max(0, parts.length - 1)));
  if (tooLong !== undefined) throw new ArchiveError('invalid_path', tooLong, { path: parts.join('/') });
  return parts;
}

export function joinPath(parts: readonly string[]): string {
  return parts.join('/');
}
