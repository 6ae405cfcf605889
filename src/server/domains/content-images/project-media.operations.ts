import { routes } from '../../../shared/api/routes.ts';
import { projectMediaSchema, putProjectMediaInput } from '../../../shared/schemas/project-media.ts';
import { bindOperations } from '../../operations/binding.ts';
import { getProjectMedia, putProjectMedia } from './project-media.service.ts';

const reads = ['wrong_auth', 'not_found'] as const;
const writes = ['wrong_auth', 'unauthorized', 'not_found', 'insufficient_privileges'] as const;

/** projects.media: a project's cover and screenshots, content images of the project. */
export const mediaOperations = bindOperations('Projects', routes.projects.media, {
  get: {
    reply: projectMediaSchema,
    summary: "The project's cover and screenshots for its store page (url: each image's largest size)",
    errors: reads,
    run: ({ deps, actor, params, appUrl }) => getProjectMedia(deps, actor, params.project, appUrl),
  },
  put: {
    body: putProjectMediaInput,
    reply: projectMediaSchema,
    summary: 'Set the cover and screenshots (finalized content images of the project, screenshots in order; patchProject)',
    errors: [...writes, 'not_finalized'],
    run: ({ deps, actor, params, body, appUrl }) => putProjectMedia(deps, actor, params.project, body, appUrl),
  },
});

