import { and, eq, sql } from 'drizzle-orm';
import { passwordSignInInput, type PasswordSignInInput, type Session } from '../../../shared/schemas/auth.ts';
import { visitorSession } from '../../../shared/visitor-session.ts';
import { privilegeNames, type PrivilegeName } from '../../../shared/schemas/privileges.ts';
import { newId } from '../../db/ids.ts';
import { credentials, sessions, userPrivileges, users } from '../../db/schema/index.ts';
import type { Executor } from '../../db/client.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from './actor.ts';
import { decoyPasswordHash, hashPassword, verifyPasswordHash } from './password-hash.ts';
import { assertAcceptableNewPassword } from './password-policy.ts';
import { findLiveSession, type LiveSession } from './principal.ts';
import { reserveSignInAttempt, settleSuccessfulSignIn } from './sign-in-limits.ts';
import { generateToken, hashToken } from '../../crypto/index.ts';

export type RequestOrigin = { address?: string; userAgent?: string };
export type SignedIn = { session: Session; token: string };

/** First registration serialises on this lock so exactly one user becomes the administrator. */
const registrationLockId = 7_303_002;

export async function signInWithPassword(deps: Deps, rawInput: PasswordSignInInput, origin: RequestOrigin): Promise<SignedIn> {
  const input = passwordSignInInput.parse(rawInput);
  const userId = input.intent === 'register' ? await registerUser(deps, input) : await verifyPassword(deps, input.name, input.password, origin);
  const token = await openBrowserSession(deps, deps.db, userId, origin);
  await deps.db.update(credentials).set({ lastUsedAt: new Date() }).where(and(eq(credentials.provider, 'password'), eq(credentials.name, input.name)));
  return signedInWith(deps, token);
}

/** A new browser session of the user (password or external sign-in); its token, shown once. */
export async function openBrowserSession(deps: Deps, executor: Executor, userId: string, origin: RequestOrigin): Promise<string> {
  const token = generateToken('cs');
  const expiresAt = new Date(Date.now() + deps.config.sessionDays * 86_400_000);
  await executor
    .insert(sessions)
    .values({ id: newId(), userId, tokenHash: hashToken(token), requireSession: true, lastUsedAt: new Date(), expiresAt, userAgent: origin.userAgent?.slice(0, 256) });
  return token;
}

/** The session reply of a session just opened (and committed). */
export async function signedInWith(deps: Deps, token: string): Promise<SignedIn> {
  const created = await findLiveSession(deps.db, token);
  return { session: describeSession(deps, created!, token), token };
}

async function verifyPassword(deps: Deps, name: string, password: string, origin: RequestOrigin): Promise<string> {
  // Counted before the (deliberately slow) hash, so guesses sent at once cannot all slip through.
  const attempt = await reserveSignInAttempt(deps.db, deps.config.signInLimits, name, origin.address);
  const [credential] = await deps.db
    .select({ userId: credentials.userId, secretHash: credentials.secretHash })
    .from(credentials)
    .where(and(eq(credentials.provider, 'password'), eq(credentials.name, name)));
  const valid = await verifyPasswordHash(password, credential?.secretHash ?? (await decoyPasswordHash(deps.config.passwordHash)));
  if (!credential || !valid) throw new AppError('wrong_credentials', 'Wrong user name or password');
  await settleSuccessfulSignIn(deps.db, attempt);
  return credential.userId;
}

async function registerUser(deps: Deps, input: { name: string; password: string; title?: string }): Promise<string> {
  assertAcceptableNewPassword(input.password, [input.name, input.title], deps.config.appName);
  const secretHash = await hashPassword(deps.config.passwordHash, input.password);
  return deps.db.transaction(async (tx) => {
    const userId = await insertUser(deps, tx, input.title ?? input.name);
    await insertPasswordCredential(tx, userId, input.name, secretHash);
    return userId;
  });
}

/**
 * Makes a user inside tx (password or external registration alike): the first user of the instance
 * becomes its administrator with every privilege, later ones get DEFAULT_PRIVILEGES, and
 * REGISTRATION=closed refuses all but the first.
 */
export async function insertUser(deps: Deps, tx: Executor, title: string): Promise<string> {
  await tx.execute(sql`select pg_advisory_xact_lock(${registrationLockId})`);
  const [existing] = await tx.select({ count: sql<number>`count(*)::int` }).from(users);
  const isFirstUser = (existing?.count ?? 0) === 0;
  if (!isFirstUser && deps.config.registration === 'closed') {
    throw new AppError('insufficient_privileges', 'Registration is closed on this instance');
  }
  const userId = newId();
  await tx.insert(users).values({ id: userId, title, isAdmin: isFirstUser });
  const granted: PrivilegeName[] = isFirstUser ? [...privilegeNames] : (deps.config.defaultPrivileges as PrivilegeName[]);
  if (granted.length > 0) await tx.insert(userPrivileges).values(granted.map((privilege) => ({ userId, privilege })));
  return userId;
}

/** The password way in (name already checked by userNameSchema); a taken name is name_conflict, races included. */
export async function insertPasswordCredential(tx: Executor, userId: string, name: string, secretHash: string): Promise<typeof credentials.$inferSelect> {
  const [inserted] = await tx
    .insert(credentials)
    .values({ id: newId(), userId, provider: 'password', name, secretHash, title: name })
    .onConflictDoNothing({ target: [credentials.provider, credentials.name] })
    .returning();
  if (!inserted) throw new AppError('name_conflict', `The user name ${name} is taken`);
  return inserted;
}

/** GET /auth/session: the caller's session, with the token the browser client sends as bearer. */
export async function getSession(deps: Deps, token: string | undefined): Promise<Session> {
  const found = token ? await findLiveSession(deps.db, token) : undefined;
  if (!found) return visitorSession(deps.config.authRequired);
  return describeSession(deps, found, token!);
}

/**
 * POST /auth/clear: ends the calling session (revoking the bearer token used) and the one the session
 * cookie names, so a browser's sign-out with the cookie alone leaves no live session behind it.
 */
export async function clearSession(deps: Deps, actor: Actor, cookieToken: string | undefined): Promise<void> {
  if (actor.kind === 'user') await deps.db.delete(sessions).where(eq(sessions.id, actor.sessionId));
  if (cookieToken) await deps.db.delete(sessions).where(eq(sessions.tokenHash, hashToken(cookieToken)));
}

function describeSession(deps: Deps, { session, user, privileges }: LiveSession, token: string): Session {
  return {
    id: session.id,
    started: session.createdAt.toISOString(),
    lastAuth: session.lastAuthAt.toISOString(),
    expiration: session.expiresAt?.toISOString() ?? null,
    requireSession: session.requireSession,
    userInfo: { id: user.id, title: user.title },
    userPrivileges: privileges,
    authToken: token,
    authRequired: deps.config.authRequired,
  };
}
