import { playUrlSchema } from '../../../shared/api/replies.ts';
import { routes } from '../../../shared/api/routes.ts';
import { bindOperations } from '../../operations/binding.ts';
import { getPackagePlayUrl, getStorePackagePlayUrl } from './browser-play.service.ts';

/** The play URLs of os:web packages (the play origin itself is a listener of its own: src/server/browser-play). */
export const playOperations = bindOperations('Packages', routes.play, {
  packageUrl: {
    reply: playUrlSchema,
    summary: 'URL that plays an os:web package on the play origin (signed and expiring unless the package is public)',
    errors: ['wrong_auth', 'not_found', 'not_supported'],
    cache: 'no-store',
    run: ({ deps, actor, params }) => getPackagePlayUrl(deps, actor, params.project, params.package),
  },
  storePackageUrl: {
    reply: playUrlSchema,
    summary: "URL that plays a web package of a public branch's current version on the play origin",
    errors: ['wrong_auth', 'not_found', 'not_supported'],
    cache: 'no-store',
    run: ({ deps, params }) => getStorePackagePlayUrl(deps, params.project, params.branch, params.package),
  },
});
