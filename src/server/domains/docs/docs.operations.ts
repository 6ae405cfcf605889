import { docsPageSchema } from '../../../shared/api/replies.ts';
import { routes } from '../../../shared/api/routes.ts';
import { bindOperations } from '../../operations/binding.ts';
import { defaultDocsLibrary, getDocsPage, type DocsLibrary } from './docs.service.ts';

let opened: { dir: string | undefined; library: DocsLibrary } | undefined;
/** The docs library, opened again when DOCS_DIR changes (a test's folder of pages). */
function library(): DocsLibrary {
  const dir = process.env.DOCS_DIR;
  if (opened?.dir !== dir || !opened) opened = { dir, library: defaultDocsLibrary() };
  return opened.library;
}

/** The user docs for the client's docs pages (no sign-in needed). */
export const docsOperations = bindOperations('Documentation', routes.docs, {
  index: {
    reply: docsPageSchema,
    summary: 'The index page of the documentation in a language',
    errors: ['not_found'],
    actor: 'none',
    cache: 'no-cache',
    run: ({ params }) => getDocsPage(library(), params.lang, ''),
  },
  page: {
    reply: docsPageSchema,
    summary: 'A documentation page in a language, or in English (lang says which) when it has no translation',
    errors: ['not_found'],
    actor: 'none',
    cache: 'no-cache',
    run: ({ params }) => getDocsPage(library(), params.lang, params.page),
  },
});
