import { z } from 'zod';

/**
 * Text rules shared by every schema that takes text from outside. PostgreSQL cannot store NUL, and no
 * name, title or description has a use for other control characters or unpaired surrogates: they are
 * refused (400 naming the field). Invisible formatting characters that can make one title look like
 * another — bidirectional embeddings, overrides and isolates, zero-width spaces, word joiners, byte
 * order marks — are removed from single-line names and titles. Zero-width (non-)joiners and
 * left-to-right/right-to-left marks stay: scripts such as Persian and emoji sequences need them.
 */
const invisibleFormatting = /[\u061C\u180E\u200B\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

/** Control characters (C0, DEL, C1) and unpaired surrogates. */
const noControlCharacters = /^[^\p{Cc}\p{Cs}]*$/u;
/** The same, but tabs and line breaks are allowed: markdown and other multi-line text. */
const noControlCharactersButLines = /^(?:[^\p{Cc}\p{Cs}]|[\t\n\r])*$/u;

export function stripInvisibleFormatting(text: string): string {
  return text.replace(invisibleFormatting, '');
}

/** A name or title: one line, trimmed, invisible formatting removed, between min and max characters. */
export function singleLineText(min: number, max: number) {
  return z
    .string()
    .overwrite(stripInvisibleFormatting)
    .trim()
    .min(min)
    .max(max)
    .regex(noControlCharacters, 'must not contain control characters');
}

/** Markdown and other multi-line text, kept as written except that control characters are refused. */
export function multiLineText(max: number) {
  return z.string().max(max).regex(noControlCharactersButLines, 'must not contain control characters');
}

/** Ids the server made (letters, digits, '-' and '_'): anything else cannot name a record. */
export const recordIdSchema = z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'not an id');

/** Tokens (sessions, uploads, invites, jobs): printable ASCII without spaces. */
export function tokenText(max = 200) {
  return z.string().min(1).max(max).regex(/^[\x21-\x7E]+$/, 'not a token');
}

/** A user named by id or sign-in name (both are letters, digits, '.', '_' and '-'). */
export const userRefSchema = z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'not a user id or name');
