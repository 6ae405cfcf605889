import { z } from 'zod';
import { packageSchema } from './packages.ts';
import { projectMediaSchema } from './project-media.ts';
import { descriptionSchema } from './projects.ts';

const storeCredentialSchema = z.object({
  provider: z.string(),
  name: z.string(),
  title: z.string(),
  profileUrl: z.string().nullable(),
  profilePictureUrl: z.string().nullable(),
});

/**
 * What the store page shows of a package, carried in the store project so the page needs no request per
 * package: `title` by the naming rule of src/shared/packages/package-name.ts, `size` the bytes of its files.
 */
const storePackageSchema = packageSchema.pick({ id: true, title: true, tags: true, size: true });
export type StorePackage = z.infer<typeof storePackageSchema>;

/** Spec §3 Store project. */
export const storeProjectSchema = z.object({
  id: z.string(),
  title: z.string(),
  owner: z.object({ title: z.string(), credentials: z.array(storeCredentialSchema) }),
  /** The project's store tags (issue 29: genre and such), normalised, in the order the owner set. */
  storeTags: z.array(z.string()),
  description: descriptionSchema,
  /** Cover and screenshots (issue 19). */
  media: projectMediaSchema,
  branches: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      versionTitle: z.string(),
      versionDescription: z.string(),
      branchVersionPublished: z.string(),
      packages: z.array(storePackageSchema),
    }),
  ),
});
export type StoreProject = z.infer<typeof storeProjectSchema>;
