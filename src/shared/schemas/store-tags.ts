import { z } from 'zod';
import { stripInvisibleFormatting } from './text.ts';

/**
 * A project's store tags (issue 29): genre and such, shown in the store page's information table and
 * matched by the store index search. At most 10; each, once normalised, is 1–24 characters of letters
 * (any script, with their combining marks), digits, spaces and hyphens, with at least one letter or
 * digit. Normalising: NFKC (full-width 'ＲＰＧ' is 'rpg', a no-break space a space), invisible
 * formatting removed (text.ts), runs of spaces collapsed to one, trimmed, lower-cased. Two tags equal
 * once normalised are refused, not merged: the owner sees which one repeats. Control characters (NUL
 * included) are refused before anything is normalised, so a line break never turns into a space.
 */
export const maxStoreTags = 10;
export const maxStoreTagLength = 24;
/** Bounds the work on one string before it is normalised (the rule's limit applies after). */
const maxRawStoreTagLength = 1000;

/** Offered by the manage page's editor; any tag that follows the rule may be set. */
export const storeTagSuggestions = [
  'action',
  'adventure',
  'arcade',
  'casual',
  'co-op',
  'educational',
  'fighting',
  'horror',
  'multiplayer',
  'music',
  'platformer',
  'puzzle',
  'racing',
  'roguelike',
  'rpg',
  'shooter',
  'simulation',
  'singleplayer',
  'sports',
  'strategy',
  'survival',
  'visual novel',
] as const;

export type StoreTagProblem = 'control' | 'empty' | 'too_long' | 'characters';
export type StoreTagsProblem = { kind: StoreTagProblem | 'duplicate'; index: number } | { kind: 'too_many' };

const controlCharacters = /[\p{Cc}\p{Cs}]/u;
const spaceRuns = /\p{Zs}+/gu;
/** Every mark follows a letter or digit (or another mark): a tag never starts with a floating accent. */
const tagPattern = /^(?:[\p{L}\p{Nd}]\p{M}*|[ -])+$/u;
const letterOrDigit = /[\p{L}\p{Nd}]/u;

/**
 * The form a tag is stored, compared and searched in (see above); no check of the rule. Idempotent
 * (the schema runs at the door and again in the service): NFKC once more after lower-casing.
 */
export function normaliseStoreTag(raw: string): string {
  return stripInvisibleFormatting(raw.normalize('NFKC')).replace(spaceRuns, ' ').trim().toLowerCase().normalize('NFKC');
}

/** What is wrong with one tag as typed, or null when it follows the rule. */
export function storeTagProblem(raw: string): StoreTagProblem | null {
  if (controlCharacters.test(raw)) return 'control';
  if (raw.length > maxRawStoreTagLength) return 'too_long';
  const tag = normaliseStoreTag(raw);
  if (tag.length === 0) return 'empty';
  if ([...tag].length > maxStoreTagLength) return 'too_long';
  if (!tagPattern.test(tag) || !letterOrDigit.test(tag)) return 'characters';
  return null;
}

/** The first thing wrong with a list of tags as typed, or null. */
export function storeTagsProblem(raws: readonly string[]): StoreTagsProblem | null {
  if (raws.length > maxStoreTags) return { kind: 'too_many' };
  const seen = new Set<string>();
  for (const [index, raw] of raws.entries()) {
    const problem = storeTagProblem(raw);
    if (problem) return { kind: problem, index };
    const tag = normaliseStoreTag(raw);
    if (seen.has(tag)) return { kind: 'duplicate', index };
    seen.add(tag);
  }
  return null;
}

const problemMessages: Record<StoreTagProblem | 'duplicate', string> = {
  control: 'must not contain control characters',
  empty: 'must not be empty',
  too_long: `must be at most ${maxStoreTagLength} characters`,
  characters: 'may hold only letters, digits, spaces and hyphens',
  duplicate: 'repeats another tag',
};

const storeTagSchema = z
  .string()
  .superRefine((raw, context) => {
    const problem = storeTagProblem(raw);
    if (problem) context.addIssue({ code: 'custom', message: problemMessages[problem] });
  })
  .overwrite(normaliseStoreTag);

/** The tags as sent (PATCH /projects/{project} `storeTags`): parsed to their normalised form, in order. */
export const storeTagsSchema = z
  .array(storeTagSchema)
  .max(maxStoreTags)
  .superRefine((tags, context) => {
    const seen = new Set<string>();
    for (const [index, tag] of tags.entries()) {
      if (seen.has(tag)) context.addIssue({ code: 'custom', message: problemMessages.duplicate, path: [index] });
      seen.add(tag);
    }
  });
