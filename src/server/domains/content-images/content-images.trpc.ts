import { z } from 'zod';
import { contentImageIdSchema, createContentImageInput, finalizeContentImageInput } from '../../../shared/schemas/content-images.ts';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { procedure, router } from '../../trpc/init.ts';
import { createContentImage, finalizeContentImage } from './content-images.service.ts';

const byProject = z.object({ project: projectIdSchema });

/** contentImages.create and contentImages.finalize: the REST routes' services; part 0 is REST only (raw bytes). */
export const contentImagesRouter = router({
  create: procedure.input(byProject.and(createContentImageInput)).mutation(({ ctx, input }) => {
    const { project, ...body } = input;
    return createContentImage(ctx.deps, ctx.actor, project, body, ctx.appUrl);
  }),
  finalize: procedure.input(byProject.extend({ image: contentImageIdSchema }).and(finalizeContentImageInput)).mutation(({ ctx, input }) => {
    const { project, image, ...body } = input;
    return finalizeContentImage(ctx.deps, project, image, body, ctx.appUrl);
  }),
});
