import { routes } from '../../../shared/api/routes.ts';
import { createContentImageInput, createdContentImageSchema, finalizeContentImageInput, finalizedContentImageSchema } from '../../../shared/schemas/content-images.ts';
import { bindOperations, handwritten } from '../../operations/binding.ts';
import { createContentImage, finalizeContentImage } from './content-images.service.ts';

/** Spec §4 paste flow: the record, the bytes as part 0 (hand-written: raw), then finalize. */
export const contentImageOperations = bindOperations('Content images', routes.contentImages, {
  create: {
    body: createContentImageInput,
    reply: createdContentImageSchema,
    summary: 'Create an image record for a description and get its upload info (patchProject or patchVersion); send it as part 0',
    errors: ['wrong_auth', 'unauthorized', 'not_found', 'insufficient_privileges', 'limit_exceeded', 'out_of_storage'],
    run: ({ deps, actor, params, body, appUrl }) => createContentImage(deps, actor, params.project, body, appUrl),
  },
  uploadPart: handwritten('raw bytes streamed to storage as they arrive (content-images.rest.ts)'),
  finalize: {
    body: finalizeContentImageInput,
    reply: finalizedContentImageSchema,
    summary: 'Finish an image upload: decode, check and encode its sizes (authorised by the upload token); url is its largest size',
    errors: ['wrong_auth', 'not_found', 'already_finalized', 'bad_param'],
    run: ({ deps, params, body, appUrl }) => finalizeContentImage(deps, params.project, params.image, body, appUrl),
  },
});
