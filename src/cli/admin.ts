import { loadConfig } from '../server/config.ts';
import { openDatabase, pgliteDirOf } from '../server/db/client.ts';
import { migrateDatabase } from '../server/db/migrate.ts';
import { applyPrivilegeChange } from '../server/domains/admin/privileges.service.ts';

export const adminUsage = `Usage:
  cartridge admin grant USER PRIVILEGE    give USER (id or sign-in name) a privilege
  cartridge admin revoke USER PRIVILEGE   take it back
Privileges: create_project, store_publish, cloud_play.
Talks to the instance database named by DATABASE_URL or DATA_DIR (stop a PGlite server first:
an embedded database opens in one process at a time).`;

/** `cartridge admin ...`: instance administration straight on the local database. */
export async function runAdminCommand(args: string[], out: (line: string) => void): Promise<number> {
  const [action, user, privilege] = args;
  if ((action !== 'grant' && action !== 'revoke') || !user || !privilege || args.length !== 3) {
    out(adminUsage);
    return 2;
  }
  const config = loadConfig();
  const database = await openDatabase({ url: config.databaseUrl, pgliteDir: pgliteDirOf(config.dataDir) });
  try {
    await migrateDatabase(database);
    const result = await applyPrivilegeChange(database.db, { user, privilege }, action);
    out(`${result.title} (${result.name ?? result.id}): ${result.privileges.join(', ') || 'no privileges'}`);
    return 0;
  } finally {
    await database.close();
  }
}
