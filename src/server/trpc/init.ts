import { initTRPC } from '@trpc/server';
import { AppError } from '../errors.ts';
import type { Deps } from '../deps.ts';
import { resolveActor } from '../domains/auth/principal.ts';
import type { RequestOrigin } from '../domains/auth/auth.service.ts';
import type { Actor } from '../domains/auth/actor.ts';
import { crossSiteRefused } from '../http/same-origin.ts';
import { isOutOfStorage, outOfStorage, storageFailureText } from '../storage/out-of-storage.ts';
import { appErrorOfTrpc, trpcErrorOf } from './error-mapping.ts';

type TrpcContext = {
  deps: Deps;
  /** Bearer token of the call, if any. */
  token: string | undefined;
  /** Session cookie, read only by auth.session and auth.clear (the cookie alone authorises nothing else). */
  cookieToken: string | undefined;
  origin: RequestOrigin;
  /** Where clients reach this app: PUBLIC_URL, else the request's own origin (absolute URLs in replies). */
  appUrl: string;
  /** Made by another site's page (http/same-origin.ts): refused where the session cookie is set or cleared. */
  crossSite: boolean;
  resHeaders: Headers;
  /** The caller, resolved once per HTTP request: a batch of procedures shares one session lookup. */
  actorOfRequest?: Promise<Actor>;
};

const t = initTRPC.context<TrpcContext>().create({
  isDev: false,
  errorFormatter({ shape, error }) {
    const { code, message, details } = appErrorOfTrpc(error);
    // A status tRPC has no code for (507) is still the one REST answers.
    const httpStatus = error.cause instanceof AppError ? error.cause.status : shape.data.httpStatus;
    return { message, code: shape.code, data: { code, httpStatus, path: shape.data.path, ...(details === undefined ? {} : { details }) } };
  },
});

export const router = t.router;

/** Services throw AppError; this gives each the tRPC code of its HTTP status and logs the unknown. */
const mapErrors = t.middleware(async ({ ctx, next, path }) => {
  const result = await next();
  if (result.ok) return result;
  const cause = result.error.cause;
  if (isOutOfStorage(cause)) {
    ctx.deps.log.error('out of storage', { path, error: storageFailureText(cause) });
    throw trpcErrorOf(outOfStorage());
  }
  if (cause instanceof AppError) throw trpcErrorOf(cause);
  if (result.error.code === 'INTERNAL_SERVER_ERROR') {
    ctx.deps.log.error('unexpected error', { path, error: cause?.stack ?? result.error.message });
  }
  return result;
});

/** Procedures that answer visitors too; the actor comes from the bearer token. */
export const procedure = t.procedure.use(mapErrors).use(async ({ ctx, next }) => {
  ctx.actorOfRequest ??= resolveActor(ctx.deps.db, ctx.token, ctx.deps.config.sessionDays);
  return next({ ctx: { actor: await ctx.actorOfRequest } });
});

/** Procedures that must not fail on a stale token (auth.session): no actor resolution. */
export const sessionlessProcedure = t.procedure.use(mapErrors);

const sameOrigin = t.middleware(({ ctx, next }) => {
  if (ctx.crossSite) throw crossSiteRefused();
  return next();
});

/** Procedures that set or clear the session cookie: never for another site's page. */
export const cookieSettingProcedure = sessionlessProcedure.use(sameOrigin);
export const cookieClearingProcedure = procedure.use(sameOrigin);
