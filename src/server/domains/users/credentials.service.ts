import { and, asc, eq } from 'drizzle-orm';
import { addPasswordInput, credentialQuery, finishTokenQuery, patchCredentialInput, type Credential } from '../../../shared/schemas/external-auth.ts';
import { credentials, users } from '../../db/schema/index.ts';
import type { Executor } from '../../db/client.ts';
import type { Deps } from '../../deps.ts';
import { notFound, refusal } from '../../errors.ts';
import { requireBrowserSession, requireUser, type Actor } from '../auth/actor.ts';
import { insertPasswordCredential } from '../auth/auth.service.ts';
import { insertExternalCredential, linkedToAnotherUser, ownerOf, refreshCredential } from '../auth/external/external-auth.service.ts';
import { deleteFlow, flowTokenRefused, lockFinishFlow } from '../auth/external/flows.ts';
import { signsIn } from '../auth/external/providers/index.ts';
import { hashPassword } from '../auth/password-hash.ts';
import { assertAcceptableNewPassword } from '../auth/password-policy.ts';

type CredentialRow = typeof credentials.$inferSelect;

function describeCredential(row: CredentialRow): Credential {
  return {
    provider: row.provider,
    name: row.name,
    title: row.title,
    profileUrl: row.profileUrl,
    profilePictureUrl: row.profilePictureUrl,
    created: row.createdAt.toISOString(),
    lastUsed: row.lastUsedAt?.toISOString() ?? null,
    isPublic: row.isPublic,
  };
}

/** GET /users/me/credentials: every way the user signs in, the password one included (provider 'password'). */
export async function listCredentials(deps: Deps, actor: Actor): Promise<Credential[]> {
  const user = requireUser(actor);
  const rows = await deps.db.select().from(credentials).where(eq(credentials.userId, user.userId)).orderBy(asc(credentials.provider), asc(credentials.createdAt));
  return rows.map(describeCredential);
}

/**
 * POST /users/me/credentials?token: links the identity of a finished link flow to the browser session's
 * user who started it (another user, or an API token, is refused; the token stays usable then).
 */
export async function linkCredential(deps: Deps, actor: Actor, rawQuery: unknown): Promise<Credential> {
  const user = requireBrowserSession(actor);
  const query = finishTokenQuery.parse(rawQuery);
  return deps.db.transaction(async (tx) => {
    const flow = await lockFinishFlow(tx, query.token);
    if (!flow || flow.intent !== 'link') throw flowTokenRefused();
    if (flow.userId !== user.userId) {
      throw refusal('insufficient_privileges', 'This link was started by another user', 'started_by_another_user');
    }
    const ownerId = await ownerOf(tx, flow.identity);
    if (ownerId && ownerId !== user.userId) throw linkedToAnotherUser(flow.identity.provider);
    const row = ownerId ? await refreshCredential(tx, flow.identity) : await insertExternalCredential(tx, user.userId, flow.identity);
    await deleteFlow(tx, flow.id);
    return describeCredential(row!);
  });
}

/**
 * DELETE /users/me/credentials?provider&name. The last way in is kept: without it nobody could sign in
 * to the account again (an itch.io link is no way in: it is removed freely and keeps no other one).
 */
export async function unlinkCredential(deps: Deps, actor: Actor, rawQuery: unknown): Promise<void> {
  const user = requireBrowserSession(actor);
  const query = credentialQuery.parse(rawQuery);
  await deps.db.transaction(async (tx) => {
    await lockUser(tx, user.userId);
    const [row] = await tx
      .select({ id: credentials.id })
      .from(credentials)
      .where(and(eq(credentials.userId, user.userId), eq(credentials.provider, query.provider), eq(credentials.name, query.name)));
    if (!row) throw notFound('credential');
    const ways = (await tx.select({ provider: credentials.provider }).from(credentials).where(eq(credentials.userId, user.userId))).filter((way) => signsIn(way.provider));
    if (signsIn(query.provider) && ways.length <= 1) {
      throw refusal('insufficient_privileges', 'This is your only way to sign in: add another one before removing it', 'last_sign_in_method');
    }
    await tx.delete(credentials).where(eq(credentials.id, row.id));
  });
}

/** PATCH /users/me/credentials?provider&name {isPublic}: whether store pages of the user's projects show it. */
export async function patchCredential(deps: Deps, actor: Actor, rawQuery: unknown, rawBody: unknown): Promise<Credential> {
  const user = requireUser(actor);
  const query = credentialQuery.parse(rawQuery);
  const body = patchCredentialInput.parse(rawBody);
  const [row] = await deps.db
    .update(credentials)
    .set({ isPublic: body.isPublic })
    .where(and(eq(credentials.userId, user.userId), eq(credentials.provider, query.provider), eq(credentials.name, query.name)))
    .returning();
  if (!row) throw notFound('credential');
  return describeCredential(row);
}

/**
 * POST /users/me/password {name, password}: a password way in for a user who has none (one who
 * registered with a provider), under the rules of registration (name free, password policy).
 */
export async function addPassword(deps: Deps, actor: Actor, rawBody: unknown): Promise<Credential> {
  const user = requireBrowserSession(actor);
  const input = addPasswordInput.parse(rawBody);
  const [account] = await deps.db.select({ title: users.title }).from(users).where(eq(users.id, user.userId));
  assertAcceptableNewPassword(input.password, [input.name, account?.title], deps.config.appName);
  const secretHash = await hashPassword(deps.config.passwordHash, input.password);
  return deps.db.transaction(async (tx) => {
    await lockUser(tx, user.userId);
    const [existing] = await tx
      .select({ name: credentials.name })
      .from(credentials)
      .where(and(eq(credentials.userId, user.userId), eq(credentials.provider, 'password')));
    if (existing) {
      throw refusal('name_conflict', `You already sign in with a password (as ${existing.name})`, 'password_exists');
    }
    return describeCredential(await insertPasswordCredential(tx, user.userId, input.name, secretHash));
  });
}

/** Serialises changes to one user's ways in (two unlinks at once must not remove both of the last two). */
async function lockUser(tx: Executor, userId: string): Promise<void> {
  const [row] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
  if (!row) throw notFound('user');
}
