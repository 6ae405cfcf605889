import { z } from 'zod';
import { descriptionSchema } from './projects.ts';

export const storeCredentialSchema = z.object({
  provider: z.string(),
  name: z.string(),
  title: z.string(),
  profileUrl: z.string().nullable(),
  profilePictureUrl: z.string().nullable(),
});

/** Spec §3 Store project. SEAM (issue 6): packages carry only their id until the packages table exists. */
export const storeProjectSchema = z.object({
  id: z.string(),
  title: z.string(),
  owner: z.object({ title: z.string(), credentials: z.array(storeCredentialSchema) }),
  description: descriptionSchema,
  branches: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      versionTitle: z.string(),
      versionDescription: z.string(),
      branchVersionPublished: z.string(),
      packages: z.array(z.object({ id: z.string() })),
    }),
  ),
});
export type StoreProject = z.infer<typeof storeProjectSchema>;
