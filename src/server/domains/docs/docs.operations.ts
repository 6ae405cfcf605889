import { docsPageSchema } from '../../../shared/api/replies.ts';
import { routes } from '../../../shared/api/routes.ts';
import { bindOperations } from '../../operations/binding.ts';
import { getDocsPage } from './docs.service.ts';

/** The user docs for the client's docs pages (no sign-in needed). */
export const docsOperations = bindOperations('Documentation', routes.docs, {
  index: {
    reply: docsPageSchema,
    summary: 'The index page of the documentation in a language',
    errors: ['not_found'],
    actor: 'none',
    cache: 'no-cache',
    run: ({ deps, params }) => getDocsPage(deps.docs, params.lang, ''),
  },
  page: {
    reply: docsPageSchema,
    summary: 'A documentation page in a language, or in English (lang says which) when it has no translation',
    errors: ['not_found'],
    actor: 'none',
    cache: 'no-cache',
    run: ({ deps, params }) => getDocsPage(deps.docs, params.lang, params.page),
  },
});
