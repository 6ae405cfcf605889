import { z } from 'zod';
import { recordIdSchema, singleLineText } from './text.ts';

export const branchIdSchema = recordIdSchema;
const branchTitleSchema = singleLineText(1, 64);

export const createBranchInput = z.object({ title: branchTitleSchema });

/**
 * Spec §3 Branch retention, in seconds for the times (the UI shows days). In a branch's `retention`,
 * null means "the project's default applies" and 0 "no limit" (kept indefinitely / any number of
 * versions), like the instance's QUOTA_* settings; in `retentionEffective` (what the retention job
 * enforces) null means "no limit".
 */
const branchRetentionSchema = z.object({
  quotaCount: z.number().int().min(0).max(1_000_000).nullable(),
  quotaTime: z.number().int().min(0).max(36_500 * 86_400).nullable(),
  quotaNonCurrentTime: z.number().int().min(0).max(36_500 * 86_400).nullable(),
});
export type BranchRetention = z.infer<typeof branchRetentionSchema>;

/**
 * PATCH .../branches/{branch}: {title} (patchBranch), {isPublic} (patchProject) and/or {retention}
 * (deleteVersion: retention removes versions); in retention, a field left out stays, null inherits.
 */
export const patchBranchInput = z
  .object({ title: branchTitleSchema.optional(), isPublic: z.boolean().optional(), retention: branchRetentionSchema.partial().optional() })
  .refine((input) => input.title !== undefined || input.isPublic !== undefined || input.retention !== undefined);

/** Spec §3 Branch; currentVersion is the latest publish to the branch (null before the first). */
export const branchSchema = z.object({
  id: z.string(),
  title: z.string(),
  isPublic: z.boolean(),
  currentVersion: z.object({ version: z.string(), title: z.string(), published: z.string() }).nullable(),
  created: z.string(),
  retention: branchRetentionSchema,
  retentionEffective: branchRetentionSchema,
});
export type Branch = z.infer<typeof branchSchema>;
