import { z } from 'zod';
import { contentImageIdSchema } from './content-images.ts';
import { descriptionImageSchema } from './projects.ts';

/**
 * A project's pictures for its store page (issue 19, beyond the spec): a cover and screenshots, each a
 * finalized content image of the project (uploaded as in the paste flow), described like the images of
 * markdown content ({id, width, height, scale, url}) so the same srcset rule renders them.
 */

export const maxScreenshots = 12;

export const projectMediaSchema = z.object({
  cover: descriptionImageSchema.nullable(),
  screenshots: z.array(descriptionImageSchema).max(maxScreenshots),
});
export type ProjectMedia = z.infer<typeof projectMediaSchema>;

/** PUT /projects/{project}/media (patchProject): content image ids of the project, screenshots in order, no repeats. */
export const putProjectMediaInput = z.object({
  cover: contentImageIdSchema.nullable(),
  screenshots: z
    .array(contentImageIdSchema)
    .max(maxScreenshots)
    .refine((ids) => new Set(ids).size === ids.length, 'a screenshot is listed twice'),
});
export type PutProjectMediaInput = z.input<typeof putProjectMediaInput>;

/** GET /store/projects: the store index (public projects with a public branch). */
export const storeIndexQuery = z.object({
  /** Words of the title (case- and accent-insensitive); empty: every project. */
  query: z.string().max(100).optional(),
  /** The reader's language: titles are sorted by its collator (Intl.Collator). */
  lang: z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/).max(35).optional(),
  /** Opaque: the `next` of the previous page. */
  cursor: z.string().max(100).optional(),
  count: z.coerce.number().int().min(1).max(60).default(24),
});

const storeIndexItemSchema = z.object({
  id: z.string(),
  title: z.string(),
  cover: descriptionImageSchema.nullable(),
  /** The os tag values of the packages in its public branches' current versions ('linux', 'web', …), in tag order. */
  platforms: z.array(z.string()),
  /** The last publish to one of its public branches. */
  updated: z.string(),
  ownerTitle: z.string(),
});
export type StoreIndexItem = z.infer<typeof storeIndexItemSchema>;

export const storeIndexPageSchema = z.object({
  items: z.array(storeIndexItemSchema),
  /** The cursor of the next page, or null on the last one. */
  next: z.string().nullable(),
  /** How many projects match, over all pages. */
  total: z.number().int(),
});
export type StoreIndexPage = z.infer<typeof storeIndexPageSchema>;
