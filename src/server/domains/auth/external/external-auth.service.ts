import { and, eq } from 'drizzle-orm';
import {
  externalAuthFinishQuery,
  externalAuthStartQuery,
  finishTokenQuery,
  type FinishedExternalAuth,
  type SignInProviderId,
  type StartedExternalAuth,
} from '../../../../shared/schemas/external-auth.ts';
import { generateToken } from '../../../crypto/index.ts';
import type { Executor } from '../../../db/client.ts';
import { newId } from '../../../db/ids.ts';
import { credentials } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import { AppError, refusal } from '../../../errors.ts';
import { requireBrowserSession, type Actor } from '../actor.ts';
import { insertUser, openBrowserSession, signedInWith, type RequestOrigin, type SignedIn } from '../auth.service.ts';
import type { ExternalIdentity } from './identity.ts';
import { deleteFlow, flowTokenRefused, lockFinishFlow, saveFinishFlow, saveStartFlow, takeStartFlow } from './flows.ts';
import { ProviderAnswerError, providerAnswerFailed, providerTitles } from './provider-errors.ts';
import { assertSignsIn, providerOf } from './providers/index.ts';

/**
 * POST /auth/external/start?provider&intent (spec §4). A link is for the signed-in browser session that
 * asks (never an API token). The provider gets a fresh single-use start token as its state; the PKCE
 * verifier and Steam's return_to stay on the server, sealed.
 */
export async function startExternalAuth(deps: Deps, actor: Actor, rawQuery: unknown, appUrl: string): Promise<StartedExternalAuth> {
  const query = externalAuthStartQuery.parse(rawQuery);
  const provider = providerOf(deps.config.signIn, query.provider);
  if (query.intent !== 'link') assertSignsIn(query.provider);
  const userId = query.intent === 'link' ? requireBrowserSession(actor).userId : null;
  const token = generateToken('xs');
  const redirectUri = `${appUrl}/oauth`;
  const started = await provider.start({ redirectUri, state: token });
  await saveStartFlow(deps.db, { token, provider: query.provider, intent: query.intent, userId, redirectUri, sealedState: deps.keys.sealSecret(JSON.stringify(started.secret)) });
  return { url: started.url, postParams: started.postParams, token };
}

/**
 * POST /auth/external/finish?token&code: consumes the start token, has the provider confirm the code
 * (or token, or assertion), and keeps the identity under a new single-use finish token for the next
 * step: users/auth when an account signs in with it (hasUser), else users/register or a link.
 */
export async function finishExternalAuth(deps: Deps, rawQuery: unknown): Promise<FinishedExternalAuth> {
  const query = externalAuthFinishQuery.parse(rawQuery);
  const flow = await takeStartFlow(deps.db, query.token);
  if (!flow) throw flowTokenRefused();
  const providerId = flow.provider as SignInProviderId;
  const provider = providerOf(deps.config.signIn, providerId);
  if (flow.intent !== 'link') assertSignsIn(providerId);
  let identity: ExternalIdentity;
  try {
    const secret = JSON.parse(deps.keys.openSecret(flow.sealedState ?? '')) as Record<string, string>;
    identity = await provider.finish({ code: query.code, state: query.token, redirectUri: flow.redirectUri ?? '', secret });
  } catch (error) {
    if (error instanceof AppError) throw error;
    // Logged without the code or any token: the provider, what was wrong, the HTTP status.
    const fields = error instanceof ProviderAnswerError ? { provider: providerId, problem: error.what, status: error.status } : { provider: providerId, error: String(error) };
    deps.log.error('external sign-in failed', fields);
    throw providerAnswerFailed(providerId, error instanceof ProviderAnswerError ? error : undefined);
  }
  const ownerId = await ownerOf(deps.db, identity);
  if (flow.intent === 'login' && !ownerId) throw noAccount(providerId);
  if (flow.intent === 'link' && ownerId && ownerId !== flow.userId) throw linkedToAnotherUser(providerId);
  const token = generateToken('xf');
  await saveFinishFlow(deps.db, { token, provider: providerId, intent: flow.intent, userId: flow.userId, identity });
  return { hasUser: ownerId !== undefined, intent: flow.intent, token };
}

/**
 * POST /users/auth?token: signs in the account the identity is linked to (any intent), like a password
 * sign-in; never with a provider that only links (itch.io), whatever the flow was started for.
 */
export async function signInExternal(deps: Deps, rawQuery: unknown, origin: RequestOrigin): Promise<SignedIn> {
  const query = finishTokenQuery.parse(rawQuery);
  const sessionToken = await deps.db.transaction(async (tx) => {
    const flow = await lockFinishFlow(tx, query.token);
    if (!flow) throw flowTokenRefused();
    assertSignsIn(flow.identity.provider);
    const ownerId = await ownerOf(tx, flow.identity);
    if (!ownerId) throw noAccount(flow.identity.provider);
    await refreshCredential(tx, flow.identity);
    await deleteFlow(tx, flow.id);
    return openBrowserSession(deps, tx, ownerId, origin);
  });
  return signedInWith(deps, sessionToken);
}

/**
 * POST /users/register?token: a new account signing in with the identity, titled as the provider shows
 * it. The rules of password registration apply (first user administrator, REGISTRATION=closed).
 */
export async function registerExternal(deps: Deps, rawQuery: unknown, origin: RequestOrigin): Promise<SignedIn> {
  const query = finishTokenQuery.parse(rawQuery);
  const sessionToken = await deps.db.transaction(async (tx) => {
    const flow = await lockFinishFlow(tx, query.token);
    if (!flow || flow.intent !== 'register') throw flowTokenRefused();
    assertSignsIn(flow.identity.provider);
    if (await ownerOf(tx, flow.identity)) {
      throw refusal('name_conflict', `This ${providerTitles[flow.identity.provider]} account already has an account here: sign in with it`, 'already_registered', {
        provider: flow.identity.provider,
      });
    }
    const userId = await insertUser(deps, tx, flow.identity.title);
    await insertExternalCredential(tx, userId, flow.identity);
    await deleteFlow(tx, flow.id);
    return openBrowserSession(deps, tx, userId, origin);
  });
  return signedInWith(deps, sessionToken);
}

/** The user an identity signs in, if any. */
export async function ownerOf(db: Executor, identity: { provider: string; name: string }): Promise<string | undefined> {
  const [row] = await db
    .select({ userId: credentials.userId })
    .from(credentials)
    .where(and(eq(credentials.provider, identity.provider), eq(credentials.name, identity.name)));
  return row?.userId;
}

/** The provider's current title, addresses and the time of use (store pages are told only if a public one changed: 0006's triggers). */
export async function refreshCredential(tx: Executor, identity: ExternalIdentity): Promise<typeof credentials.$inferSelect | undefined> {
  const [updated] = await tx
    .update(credentials)
    .set({ title: identity.title, profileUrl: identity.profileUrl, profilePictureUrl: identity.profilePictureUrl, lastUsedAt: new Date() })
    .where(and(eq(credentials.provider, identity.provider), eq(credentials.name, identity.name)))
    .returning();
  return updated;
}

/** The identity as a way in of userId; one already linked (a race lost) is name_conflict. */
export async function insertExternalCredential(tx: Executor, userId: string, identity: ExternalIdentity): Promise<typeof credentials.$inferSelect> {
  const [inserted] = await tx
    .insert(credentials)
    .values({
      id: newId(),
      userId,
      provider: identity.provider,
      name: identity.name,
      title: identity.title,
      profileUrl: identity.profileUrl,
      profilePictureUrl: identity.profilePictureUrl,
      lastUsedAt: new Date(),
    })
    .onConflictDoNothing({ target: [credentials.provider, credentials.name] })
    .returning();
  if (!inserted) throw linkedToAnotherUser(identity.provider);
  return inserted;
}

export function linkedToAnotherUser(provider: SignInProviderId): AppError {
  return refusal('name_conflict', `This ${providerTitles[provider]} account is linked to another user`, 'linked_to_another_user', { provider });
}

function noAccount(provider: SignInProviderId): AppError {
  return refusal('wrong_credentials', `No account signs in with this ${providerTitles[provider]} account: register with it first`, 'no_account', { provider });
}
