import { ZodError } from 'zod';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { openDatabase, pgliteDirOf, type Database } from '../db/client.ts';
import { migrateDatabase } from '../db/migrate.ts';
import { adoptInstanceKey } from '../crypto/instance-key.ts';
import { resetUserPassword } from '../domains/admin/password-reset.service.ts';
import { applyPrivilegeChange } from '../domains/admin/privileges.service.ts';
import { addMachineRecord, listMachineRecords, revokeMachineRecord } from '../domains/cloud-play/machines.service.ts';
import type { CloudMachine } from '../../shared/schemas/cloud-play.ts';
import { AppError } from '../errors.ts';
import { runBackup } from './backup.ts';
import { BackupRefusal } from './backup-format.ts';
import { PasswordInputRefusal, readNewPassword } from './read-password.ts';
import { runRestore } from './restore.ts';

export type CommandOutput = { stdout: (text: string) => void; stderr: (text: string) => void };

const adminUsage = `Usage:
  cartridge admin grant USER PRIVILEGE    give USER (id or sign-in name) a privilege
  cartridge admin revoke USER PRIVILEGE   take it back
  cartridge admin set-password USER [--name NAME]
                                          set USER's password, read from stdin (a hidden prompt, or one
                                          line from a pipe); every session and API token of USER ends;
                                          --name gives a sign-in name to a user who has none (itch.io)
  cartridge admin machine add TITLE       add a cloud-play host machine; prints its token (shown once)
  cartridge admin machine list            list the host machines
  cartridge admin machine revoke ID       revoke a machine's token; its sessions end
  cartridge admin backup DIR              back up the database, every blob and the generated secret key
                                          into DIR (new or empty); PostgreSQL while the server runs
  cartridge admin restore DIR [--force]   restore a backup into an empty database and blob store
                                          (--force replaces what is there), then migrate
  cartridge admin adopt-secret-key        make this SECRET_KEY the instance's key (processes started
                                          with another one refuse to start; what an old key sealed
                                          no longer opens unless it is SECRET_KEY_PREVIOUS)
Privileges: create_project, store_publish, cloud_play.
Talks to the instance database named by DATABASE_URL or DATA_DIR (stop a PGlite server first:
an embedded database opens in one process at a time; a command refuses while one holds it) and the
blob store of STORAGE_URL.
PostgreSQL backups use pg_dump and pg_restore (on PATH, or PG_DUMP and PG_RESTORE); see docs/en/backup.md.`;

/** Exit codes: 2 wrong usage, 1 a refused change or a bad setting, 5 any other failure (database down). */
const exitCodes = { ok: 0, refused: 1, usage: 2, failure: 5 } as const;

/** Opens the instance database (migrated) for one command. */
async function withInstanceDatabase<T>(fn: (db: Database, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = await openDatabase({ url: config.databaseUrl, pgliteDir: pgliteDirOf(config.dataDir) });
  try {
    await migrateDatabase(database);
    return await fn(database.db, config);
  } finally {
    await database.close();
  }
}

async function changePrivilege(action: 'grant' | 'revoke', user: string, privilege: string, out: CommandOutput): Promise<void> {
  await withInstanceDatabase(async (db) => {
    const result = await applyPrivilegeChange(db, { user, privilege }, action);
    out.stdout(`${result.title} (${result.name ?? result.id}): ${result.privileges.join(', ') || 'no privileges'}\n`);
  });
}

/** `admin set-password USER [--name NAME]`: the password only ever comes from stdin (read-password.ts). */
async function setPassword(args: string[], out: CommandOutput): Promise<void> {
  const [user, , name] = args as [string, string?, string?];
  await withInstanceDatabase(async (db, config) => {
    const reset = await resetUserPassword(db, config, { user, name }, (target) => readNewPassword(`New password for ${target.title} (${target.name}): `, out.stderr));
    const count = reset.sessionsEnded;
    const ended = count === 0 ? 'no session or API token was open' : count === 1 ? '1 session or API token ended' : `${count} sessions and API tokens ended`;
    out.stdout(`${reset.title} (${reset.id}) can now sign in as ${reset.name} with the new password; ${ended}.\n`);
  });
}

async function adoptSecretKey(out: CommandOutput): Promise<void> {
  const { secretKey } = loadConfig();
  await withInstanceDatabase(async (db) => {
    const { keyId, previousKeyId } = await adoptInstanceKey(db, secretKey);
    out.stdout(previousKeyId === keyId ? `The instance already uses this SECRET_KEY (key id ${keyId}).\n` : `The instance key is now key id ${keyId}${previousKeyId ? ` (was ${previousKeyId})` : ''}: start every process with this SECRET_KEY.\n`);
  });
}

function machineLine(machine: CloudMachine): string {
  const state = machine.revoked ? 'revoked' : machine.lastSeen ? `last seen ${machine.lastSeen}` : 'never seen';
  return `${machine.id}  ${machine.title}  ${state}  sessions ${machine.liveSessions}/${machine.capacity}  agent ${machine.agentVersion ?? '-'}\n`;
}

/** `admin machine add TITLE | list | revoke ID`: cloud-play host machines (domains/cloud-play/machines.service.ts). */
async function machineCommand(args: string[], out: CommandOutput): Promise<void> {
  const [action, value] = args;
  await withInstanceDatabase(async (db) => {
    if (action === 'add') {
      const { machine, token } = await addMachineRecord(db, { title: value });
      // The token last, alone on its line (`| tail -n 1`); only its SHA-256 is kept.
      out.stdout(`Machine ${machine.id} (${machine.title}) added. Give its host agent this token; it is shown only now:\n${token}\n`);
    } else if (action === 'list') {
      const machines = await listMachineRecords(db);
      out.stdout(machines.length === 0 ? 'No cloud-play machines.\n' : machines.map(machineLine).join(''));
    } else {
      const { machine, sessionsEnded } = await revokeMachineRecord(db, { machine: value });
      out.stdout(`Machine ${machine.id} (${machine.title}) revoked; ${sessionsEnded} session${sessionsEnded === 1 ? '' : 's'} ended.\n`);
    }
  });
}

function isUsage(args: string[]): boolean {
  const [action, first, second] = args;
  if (action === 'grant' || action === 'revoke') return Boolean(first && second) && args.length === 3;
  if (action === 'adopt-secret-key') return args.length === 1;
  // No argument could be the password: USER, then only --name NAME.
  if (action === 'set-password') return Boolean(first) && !first!.startsWith('-') && (args.length === 2 || (args.length === 4 && second === '--name' && Boolean(args[3])));
  if (action === 'backup') return args.length === 2 && Boolean(first) && !first!.startsWith('-');
  if (action === 'restore') {
    const rest = args.slice(1);
    const folders = rest.filter((arg) => !arg.startsWith('-'));
    return folders.length === 1 && Boolean(folders[0]) && rest.every((arg) => !arg.startsWith('-') || arg === '--force') && rest.filter((arg) => arg === '--force').length <= 1;
  }
  if (action !== 'machine') return false;
  if (first === 'list') return args.length === 2;
  return (first === 'add' || first === 'revoke') && Boolean(second) && args.length === 3;
}

/** `cartridge admin ...` (the server executable): instance administration on the local database. */
export async function runAdminCommand(args: string[], out: CommandOutput): Promise<number> {
  if (!isUsage(args)) {
    out.stdout(`${adminUsage}\n`);
    return exitCodes.usage;
  }
  const [action, user, privilege] = args as [string, string, string];
  try {
    if (action === 'machine') await machineCommand(args.slice(1), out);
    else if (action === 'adopt-secret-key') await adoptSecretKey(out);
    else if (action === 'set-password') await setPassword(args.slice(1), out);
    else if (action === 'backup') await runBackup(user, out);
    else if (action === 'restore') await runRestore(args.slice(1).find((arg) => !arg.startsWith('-'))!, { force: args.includes('--force') }, out);
    else await changePrivilege(action as 'grant' | 'revoke', user, privilege, out);
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof AppError || error instanceof ConfigError || error instanceof BackupRefusal || error instanceof PasswordInputRefusal) {
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
