import { addPasswordInput, credentialQuery, finishTokenQuery, patchCredentialInput } from '../../../shared/schemas/external-auth.ts';
import { procedure } from '../../trpc/init.ts';
import { addPassword, linkCredential, listCredentials, patchCredential, unlinkCredential } from './credentials.service.ts';

const patchInput = credentialQuery.extend(patchCredentialInput.shape);

/** users.credentials, linkCredential, unlinkCredential, patchCredential, addPassword: the REST routes' services. */
export const credentialProcedures = {
  credentials: procedure.query(({ ctx }) => listCredentials(ctx.deps, ctx.actor)),
  linkCredential: procedure.input(finishTokenQuery).mutation(({ ctx, input }) => linkCredential(ctx.deps, ctx.actor, input)),
  unlinkCredential: procedure.input(credentialQuery).mutation(async ({ ctx, input }) => {
    await unlinkCredential(ctx.deps, ctx.actor, input);
    return { ok: true };
  }),
  patchCredential: procedure
    .input(patchInput)
    .mutation(({ ctx, input }) => patchCredential(ctx.deps, ctx.actor, { provider: input.provider, name: input.name }, { isPublic: input.isPublic })),
  addPassword: procedure.input(addPasswordInput).mutation(({ ctx, input }) => addPassword(ctx.deps, ctx.actor, input)),
};
