import { routes } from '../../../shared/api/routes.ts';
import { localAppDownloadsSchema } from '../../../shared/schemas/local-helper.ts';
import { bindOperations, handwritten } from '../../operations/binding.ts';
import { listLocalAppDownloads } from './local-app.service.ts';

/** The local companion app's builds (no sign-in: players download it). */
export const localAppOperations = bindOperations('Local app', routes.localApp, {
  downloads: {
    reply: localAppDownloadsSchema,
    summary: 'The local app builds this server offers, one per platform, with their download URLs',
    errors: [],
    actor: 'none',
    cache: 'no-cache',
    run: ({ deps, appUrl }) => listLocalAppDownloads(deps, appUrl),
  },
  download: handwritten('a file with Range and HEAD (local-app.rest.ts)'),
});
