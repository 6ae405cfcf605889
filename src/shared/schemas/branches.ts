import { z } from 'zod';

export const branchIdSchema = z.string().min(1).max(64);
export const branchTitleSchema = z.string().trim().min(1).max(64);

export const createBranchInput = z.object({ title: branchTitleSchema });

/** PATCH .../branches/{branch}: {title} (patchBranch) and/or {isPublic} (patchProject). */
export const patchBranchInput = z
  .object({ title: branchTitleSchema.optional(), isPublic: z.boolean().optional() })
  .refine((input) => input.title !== undefined || input.isPublic !== undefined);

/** Spec §3 Branch; currentVersion is the latest publish to the branch (null before the first). */
export const branchSchema = z.object({
  id: z.string(),
  title: z.string(),
  isPublic: z.boolean(),
  currentVersion: z.object({ version: z.string(), title: z.string(), published: z.string() }).nullable(),
  created: z.string(),
});
export type Branch = z.infer<typeof branchSchema>;
