import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { userNameSchema } from '../../../shared/schemas/auth.ts';
import { userRefSchema } from '../../../shared/schemas/text.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import { credentials, sessions, users } from '../../db/schema/index.ts';
import { AppError, notFound, refusal } from '../../errors.ts';
import { insertPasswordCredential } from '../auth/auth.service.ts';
import { hashPassword } from '../auth/password-hash.ts';
import { assertAcceptableNewPassword } from '../auth/password-policy.ts';
import { findUserId } from './privileges.service.ts';

const passwordResetInput = z.object({
  /** User id or sign-in name. */
  user: userRefSchema,
  /** The sign-in name to give a user who has none (one who registered with a provider). */
  name: userNameSchema.optional(),
});

/** Who the new password is for, as the command says it before reading the password. */
export type PasswordResetTarget = { id: string; title: string; name: string; hasPassword: boolean };
export type PasswordReset = PasswordResetTarget & { sessionsEnded: number };

/**
 * `cartridge admin set-password USER [--name NAME]` (commands/admin.ts): an operator sets a user's
 * password, for one locked out (an itch.io-only account, since itch.io no longer signs in). Every
 * session and API token of the user ends: a reset means the old ways in may be someone else's.
 * readPassword is asked only once the user and the name are known good; a refused password, name or
 * user changes nothing.
 */
export async function resetUserPassword(
  db: Database,
  config: Pick<Config, 'appName' | 'passwordHash'>,
  rawInput: { user: string; name?: string },
  readPassword: (target: PasswordResetTarget) => Promise<string>,
): Promise<PasswordReset> {
  const input = passwordResetInput.parse(rawInput);
  const target = await describeTarget(db, input.user, input.name);
  const password = await readPassword(target);
  assertAcceptableNewPassword(password, [target.name, target.title], config.appName);
  const secretHash = await hashPassword(config.passwordHash, password);
  const sessionsEnded = await db.transaction(async (tx) => {
    const [locked] = await tx.select({ id: users.id }).from(users).where(eq(users.id, target.id)).for('update');
    if (!locked) throw notFound('user');
    const [existing] = await tx.select({ name: credentials.name }).from(credentials).where(and(eq(credentials.userId, target.id), eq(credentials.provider, 'password')));
    if (existing && existing.name !== target.name) throw new AppError('name_conflict', `${target.title} signs in as ${existing.name} now: run the command again`);
    if (existing) await tx.update(credentials).set({ secretHash }).where(and(eq(credentials.userId, target.id), eq(credentials.provider, 'password')));
    else await insertPasswordCredential(tx, target.id, target.name, secretHash);
    const ended = await tx.delete(sessions).where(eq(sessions.userId, target.id)).returning({ id: sessions.id });
    return ended.length;
  });
  return { ...target, sessionsEnded };
}

async function describeTarget(db: Database, user: string, newName: string | undefined): Promise<PasswordResetTarget> {
  const userId = await findUserId(db, user);
  if (!userId) throw notFound('user');
  const [row] = await db
    .select({ title: users.title, name: credentials.name })
    .from(users)
    .leftJoin(credentials, and(eq(credentials.userId, users.id), eq(credentials.provider, 'password')))
    .where(eq(users.id, userId));
  if (!row) throw notFound('user');
  if (row.name) {
    if (newName && newName !== row.name) {
      throw refusal('bad_param', `Invalid \`name\`: ${row.title} signs in as ${row.name} already; leave out --name`, 'password_exists', { field: 'name' });
    }
    return { id: userId, title: row.title, name: row.name, hasPassword: true };
  }
  if (!newName) {
    throw refusal('bad_param', `${row.title} has no sign-in name yet: give one with --name NAME`, 'required', { field: 'name' });
  }
  const [taken] = await db.select({ id: credentials.id }).from(credentials).where(and(eq(credentials.provider, 'password'), eq(credentials.name, newName)));
  if (taken) throw new AppError('name_conflict', `The user name ${newName} is taken`);
  return { id: userId, title: row.title, name: newName, hasPassword: false };
}
