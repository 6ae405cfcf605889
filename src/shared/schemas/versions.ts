import { z } from 'zod';
import { multiLineText, recordIdSchema, singleLineText } from './text.ts';

const versionIdSchema = recordIdSchema;
export const versionTitleSchema = singleLineText(1, 64);
const versionDescriptionSchema = multiLineText(100_000);

/** POST .../versions; packages in order (ids of finalized packages of the project). */
export const createVersionInput = z.object({
  title: versionTitleSchema,
  description: versionDescriptionSchema.default(''),
  packages: z.array(recordIdSchema).max(100).default([]),
});

export const patchVersionInput = z
  .object({ title: versionTitleSchema.optional(), description: versionDescriptionSchema.optional() })
  .refine((input) => input.title !== undefined || input.description !== undefined);

/** Spec §3 Version. */
export const versionSchema = z.object({ id: z.string(), title: z.string(), description: z.string(), created: z.string() });
export type Version = z.infer<typeof versionSchema>;

/** Spec §3 Version-in-branch. */
export const versionInBranchSchema = z.object({ branchId: z.string(), branchTitle: z.string(), isCurrent: z.boolean(), published: z.string() });
export type VersionInBranch = z.infer<typeof versionInBranchSchema>;

/** One publish in a branch's history (newest first). */
export const branchHistoryItemSchema = versionSchema.extend({ published: z.string(), isCurrent: z.boolean() });
export type BranchHistoryItem = z.infer<typeof branchHistoryItemSchema>;

/** before: an ISO time (items published strictly before it); count: page size. */
export const historyPageQuery = z.object({
  before: z.iso.datetime({ offset: true }).optional(),
  count: z.coerce.number().int().min(1).max(100).default(20),
});

/**
 * Spec §5 default version title: increment the last numeric segment of the base title, else append
 * '.1'; without a base, '1.0.0'.
 */
export function nextVersionTitle(base: string | null | undefined): string {
  if (!base) return '1.0.0';
  const match = /^(.*?)(\d+)(\D*)$/.exec(base);
  if (!match) return `${base}.1`;
  const [, head, digits, tail] = match;
  const next = (BigInt(digits!) + 1n).toString().padStart(digits!.length, '0');
  return `${head}${next}${tail}`;
}

export type VersionTitleProblem = 'required' | 'too_long' | 'invalid' | 'taken';

/**
 * What the server would refuse in a new version's title, checked before anything is sent: the
 * schema's rule (cleaned, trimmed, 1–64 characters, no control characters), then the title of a version
 * the project already has (titles are unique per project, compared as stored). null: acceptable.
 */
export function versionTitleProblem(title: string, takenTitles: readonly string[]): VersionTitleProblem | null {
  const parsed = versionTitleSchema.safeParse(title);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue?.code === 'too_small') return 'required';
    if (issue?.code === 'too_big') return 'too_long';
    return 'invalid';
  }
  return takenTitles.includes(parsed.data) ? 'taken' : null;
}
