import { Elysia } from 'elysia';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { defaultDocsLibrary, getDocsPage, type DocsLibrary } from './docs.service.ts';

const docsPageSchema = z.object({
  markdown: z.string(),
  lang: z.string(),
  requestedLang: z.string(),
  available: z.array(z.string()),
});

const segment = z.string().max(100);

/** GET /documentation/{lang}/{page}: user docs for the client's docs pages (no sign-in needed). */
export function docsRoutes(_deps: Deps, library: DocsLibrary = defaultDocsLibrary()) {
  return new Elysia({ prefix: '/documentation', tags: ['Documentation'] })
    .get(
      '/:lang',
      async ({ params, set }) => {
        set.headers['cache-control'] = 'no-cache';
        return getDocsPage(library, params.lang, '');
      },
      { params: z.object({ lang: segment }), response: docsPageSchema, detail: { summary: 'The index page of the documentation in a language' } },
    )
    .get(
      '/:lang/:page',
      async ({ params, set }) => {
        set.headers['cache-control'] = 'no-cache';
        return getDocsPage(library, params.lang, params.page);
      },
      {
        params: z.object({ lang: segment, page: segment }),
        response: docsPageSchema,
        detail: { summary: 'A documentation page in a language, or in English (lang says which) when it has no translation' },
      },
    );
}
