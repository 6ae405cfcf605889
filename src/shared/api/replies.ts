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

/** POST /auth/external/start?provider&intent (spec §7; spec §3 external auth start response). */
export const externalAuthStartQuery = z.object({
  provider: z.string(),
  intent: z.enum(['login', 'register', 'link']),
});
export const startedExternalAuthSchema = z.object({
  url: z.string(),
  token: z.string(),
  postParams: z.record(z.string(), z.string()).nullish(),
});
export type StartedExternalAuth = z.infer<typeof startedExternalAuthSchema>;

/** GET .../play: the URL that plays a web package on the play origin. */
export const playUrlSchema = z.object({ url: z.string() });
