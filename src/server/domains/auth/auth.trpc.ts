import { passwordSignInInput } from '../../../shared/schemas/auth.ts';
import { clearedSessionCookie, sessionCookie } from '../../http/session-cookie.ts';
import { cookieClearingProcedure, cookieSettingProcedure, router, sessionlessProcedure } from '../../trpc/init.ts';
import { clearSession, getSession, signInWithPassword } from './auth.service.ts';
import { externalAuthProcedures } from './external/external-auth.trpc.ts';

export const authRouter = router({
  session: sessionlessProcedure.query(({ ctx }) => getSession(ctx.deps, ctx.token ?? ctx.cookieToken)),
  password: cookieSettingProcedure.input(passwordSignInInput).mutation(async ({ ctx, input }) => {
    const signedIn = await signInWithPassword(ctx.deps, input, ctx.origin);
    ctx.resHeaders.append('set-cookie', sessionCookie(ctx.deps.config, signedIn.token, new Date(signedIn.session.expiration!)));
    return signedIn.session;
  }),
  clear: cookieClearingProcedure.mutation(async ({ ctx }) => {
    await clearSession(ctx.deps, ctx.actor, ctx.cookieToken);
    ctx.resHeaders.append('set-cookie', clearedSessionCookie(ctx.deps.config));
    return { ok: true };
  }),
  ...externalAuthProcedures,
});
