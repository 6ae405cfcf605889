import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError, exitCodes } from './errors.ts';
import type { CliIo } from './io.ts';

export type Credentials = { server: string; token: string };

function homeOf(io: CliIo): string {
  const home = io.env.HOME ?? io.env.USERPROFILE;
  if (!home) throw new CliError(exitCodes.usage, 'HOME is not set');
  return home;
}

/** ~/.config/cartridge (XDG_CONFIG_HOME honoured). */
function configDir(io: CliIo): string {
  return join(io.env.XDG_CONFIG_HOME || join(homeOf(io), '.config'), 'cartridge');
}

/** ~/.cache/cartridge (XDG_CACHE_HOME honoured): packed archives waiting for upload. */
export function cacheDir(io: CliIo): string {
  return join(io.env.XDG_CACHE_HOME || join(homeOf(io), '.cache'), 'cartridge');
}

function credentialsPath(io: CliIo): string {
  return join(configDir(io), 'credentials.json');
}

export async function readStoredCredentials(io: CliIo): Promise<Credentials | undefined> {
  const file = Bun.file(credentialsPath(io));
  if (!(await file.exists())) return undefined;
  try {
    const value = (await file.json()) as Partial<Credentials>;
    return typeof value.server === 'string' && typeof value.token === 'string' ? { server: value.server, token: value.token } : undefined;
  } catch {
    return undefined;
  }
}

/** Written 0600 in a 0700 folder: the token is as good as a password. */
export async function storeCredentials(io: CliIo, credentials: Credentials): Promise<string> {
  const dir = configDir(io);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = credentialsPath(io);
  await writeFile(path, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
  return path;
}

export async function removeCredentials(io: CliIo): Promise<boolean> {
  const file = Bun.file(credentialsPath(io));
  if (!(await file.exists())) return false;
  await rm(credentialsPath(io));
  return true;
}

/**
 * The server and token to use: CARTRIDGE_SERVER / CARTRIDGE_TOKEN (CI), else what `login` stored.
 * Missing → exit 2 with a hint.
 */
export async function requireCredentials(io: CliIo): Promise<Credentials> {
  const stored = await readStoredCredentials(io);
  const server = io.env.CARTRIDGE_SERVER || stored?.server;
  const token = io.env.CARTRIDGE_TOKEN || stored?.token;
  if (!server || !token) throw new CliError(exitCodes.auth, 'not signed in: run `cartridge login --server URL --token TOKEN` (or set CARTRIDGE_SERVER and CARTRIDGE_TOKEN)');
  return { server: server.replace(/\/+$/, ''), token };
}
