import { and, asc, eq, or } from 'drizzle-orm';
import { adminPrivilegeInput } from '../../../shared/schemas/users.ts';
import type { Database } from '../../db/client.ts';
import { credentials, userPrivileges, users } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import { requireAdmin, type Actor } from '../auth/actor.ts';
import { describeUser } from '../users/users.service.ts';
import type { Me } from '../../../shared/schemas/users.ts';

type PrivilegeChange = { user: string; privilege: string };

export async function listUsers(deps: Deps, actor: Actor): Promise<Me[]> {
  requireAdmin(actor);
  const rows = await deps.db.select({ id: users.id }).from(users).orderBy(asc(users.createdAt), asc(users.id));
  return Promise.all(rows.map((row) => describeUser(deps.db, row.id)));
}

export async function grantPrivilege(deps: Deps, actor: Actor, input: PrivilegeChange): Promise<Me> {
  requireAdmin(actor);
  return applyPrivilegeChange(deps.db, input, 'grant');
}

export async function revokePrivilege(deps: Deps, actor: Actor, input: PrivilegeChange): Promise<Me> {
  requireAdmin(actor);
  return applyPrivilegeChange(deps.db, input, 'revoke');
}

/** Shared by the admin procedures and the server's `admin` command (commands/admin.ts), which talks to the database directly. */
export async function applyPrivilegeChange(db: Database, rawInput: PrivilegeChange, change: 'grant' | 'revoke'): Promise<Me> {
  const input = adminPrivilegeInput.parse(rawInput);
  const userId = await findUserId(db, input.user);
  if (!userId) throw notFound('user');
  if (change === 'grant') {
    await db.insert(userPrivileges).values({ userId, privilege: input.privilege }).onConflictDoNothing();
  } else {
    await db.delete(userPrivileges).where(and(eq(userPrivileges.userId, userId), eq(userPrivileges.privilege, input.privilege)));
  }
  return describeUser(db, userId);
}

/** A user by id or sign-in name (the password credential's name), as `admin` commands name them. */
export async function findUserId(db: Database, idOrName: string): Promise<string | undefined> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .leftJoin(credentials, and(eq(credentials.userId, users.id), eq(credentials.provider, 'password')))
    .where(or(eq(users.id, idOrName), eq(credentials.name, idOrName.toLowerCase())))
    .limit(1);
  return row?.id;
}
