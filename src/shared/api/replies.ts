import { z } from 'zod';

/**
 * Shapes of calls that src/shared/schemas does not describe yet (the server declares them next to
 * its routes). The route table uses their types only; the server may take them from here.
 */

/** DELETE routes and a few actions: `{ ok: true }`. */
export const okReplySchema = z.object({ ok: z.boolean() });

/** GET /documentation/{lang}/{page}: English (lang says so) when the page has no translation. */
export const docsPageSchema = z.object({
  markdown: z.string(),
  lang: z.string(),
  requestedLang: z.string(),
  available: z.array(z.string()),
});
export type DocsPage = z.infer<typeof docsPageSchema>;

/** GET .../play: the URL that plays a web package on the play origin. */
export const playUrlSchema = z.object({ url: z.string() });

