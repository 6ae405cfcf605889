import { createApiTokenInput, patchMeInput, sessionIdSchema } from '../../../shared/schemas/users.ts';
import { z } from 'zod';
import { procedure, router } from '../../trpc/init.ts';
import { credentialProcedures } from './credentials.trpc.ts';
import { createApiToken, listSessions, revokeSession } from './sessions.service.ts';
import { deleteMe, getMe, renameMe } from './users.service.ts';

export const usersRouter = router({
  me: procedure.query(({ ctx }) => getMe(ctx.deps, ctx.actor)),
  rename: procedure.input(patchMeInput).mutation(({ ctx, input }) => renameMe(ctx.deps, ctx.actor, input)),
  delete: procedure.mutation(async ({ ctx }) => {
    await deleteMe(ctx.deps, ctx.actor);
    return { ok: true };
  }),
  sessions: router({
    list: procedure.query(({ ctx }) => listSessions(ctx.deps, ctx.actor)),
    create: procedure.input(createApiTokenInput).mutation(({ ctx, input }) => createApiToken(ctx.deps, ctx.actor, input)),
    revoke: procedure.input(z.object({ session: sessionIdSchema })).mutation(async ({ ctx, input }) => {
      await revokeSession(ctx.deps, ctx.actor, input.session);
      return { ok: true };
    }),
  }),
  ...credentialProcedures,
});
