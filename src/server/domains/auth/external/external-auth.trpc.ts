import { externalAuthFinishQuery, externalAuthStartQuery, finishTokenQuery } from '../../../../shared/schemas/external-auth.ts';
import { sessionCookie } from '../../../http/session-cookie.ts';
import { cookieSettingProcedure, procedure, sessionlessProcedure } from '../../../trpc/init.ts';
import { finishExternalAuth, registerExternal, signInExternal, startExternalAuth } from './external-auth.service.ts';

/** auth.externalStart, externalFinish, signInExternal, registerExternal: the REST routes' services. */
export const externalAuthProcedures = {
  externalStart: procedure.input(externalAuthStartQuery).mutation(({ ctx, input }) => startExternalAuth(ctx.deps, ctx.actor, input, ctx.appUrl)),
  externalFinish: sessionlessProcedure.input(externalAuthFinishQuery).mutation(({ ctx, input }) => finishExternalAuth(ctx.deps, input)),
  signInExternal: cookieSettingProcedure.input(finishTokenQuery).mutation(async ({ ctx, input }) => {
    const signedIn = await signInExternal(ctx.deps, input, ctx.origin);
    ctx.resHeaders.append('set-cookie', sessionCookie(ctx.deps.config, signedIn.token, new Date(signedIn.session.expiration!)));
    return signedIn.session;
  }),
  registerExternal: cookieSettingProcedure.input(finishTokenQuery).mutation(async ({ ctx, input }) => {
    const signedIn = await registerExternal(ctx.deps, input, ctx.origin);
    ctx.resHeaders.append('set-cookie', sessionCookie(ctx.deps.config, signedIn.token, new Date(signedIn.session.expiration!)));
    return signedIn.session;
  }),
};
