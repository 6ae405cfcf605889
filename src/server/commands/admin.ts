import { ZodError } from 'zod';
import { ConfigError, loadConfig } from '../config.ts';
import { openDatabase, pgliteDirOf } from '../db/client.ts';
import { migrateDatabase } from '../db/migrate.ts';
import { applyPrivilegeChange } from '../domains/admin/privileges.service.ts';
import { AppError } from '../errors.ts';

export type CommandOutput = { stdout: (text: string) => void; stderr: (text: string) => void };

export const adminUsage = `Usage:
  cartridge admin grant USER PRIVILEGE    give USER (id or sign-in name) a privilege
  cartridge admin revoke USER PRIVILEGE   take it back
Privileges: create_project, store_publish, cloud_play.
Talks to the instance database named by DATABASE_URL or DATA_DIR (stop a PGlite server first:
an embedded database opens in one process at a time).`;

/** Exit codes: 2 wrong usage, 1 a refused change or a bad setting, 5 any other failure (database down). */
const exitCodes = { ok: 0, refused: 1, usage: 2, failure: 5 } as const;

async function changePrivilege(action: 'grant' | 'revoke', user: string, privilege: string, out: CommandOutput): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({ url: config.databaseUrl, pgliteDir: pgliteDirOf(config.dataDir) });
  try {
    await migrateDatabase(database);
    const result = await applyPrivilegeChange(database.db, { user, privilege }, action);
    out.stdout(`${result.title} (${result.name ?? result.id}): ${result.privileges.join(', ') || 'no privileges'}\n`);
  } finally {
    await database.close();
  }
}

/** `cartridge admin ...` (the server executable): instance administration on the local database. */
export async function runAdminCommand(args: string[], out: CommandOutput): Promise<number> {
  const [action, user, privilege] = args;
  if ((action !== 'grant' && action !== 'revoke') || !user || !privilege || args.length !== 3) {
    out.stdout(`${adminUsage}\n`);
    return exitCodes.usage;
  }
  try {
    await changePrivilege(action, user, privilege, out);
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof AppError || error instanceof ConfigError) {
      out.stderr(`cartridge: ${error.message}\n`);
      return exitCodes.refused;
    }
    if (error instanceof ZodError) {
      out.stderr(`cartridge: Invalid \`${String(error.issues[0]?.path[0] ?? 'input')}\`\n`);
      return exitCodes.refused;
    }
    out.stderr(`cartridge: ${error instanceof Error ? error.message : String(error)}\n`);
    return exitCodes.failure;
  }
}
