import { ApiError } from '../../shared/api/errors.ts';
import { routes } from '../../shared/api/routes.ts';
import type { Me } from '../../shared/schemas/users.ts';
import { createCliApi } from '../api.ts';
import { parseCommandArgs, retryDelayOf } from '../args.ts';
import { readStoredCredentials, removeCredentials, storeCredentials } from '../credentials.ts';
import { CliError, exitCodes } from '../errors.ts';
import type { CliIo } from '../io.ts';

export const loginUsage = `cartridge login --server URL [--token TOKEN]
  Checks an API token (made on your account page, or CARTRIDGE_TOKEN; asked for when missing) and
  stores it with the server address in ~/.config/cartridge/credentials.json (mode 0600).
cartridge logout
  Forgets the stored token.`;

export async function runLogin(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { server: { type: 'string' }, token: { type: 'string' } });
  if (values.help) {
    io.stdout(`${loginUsage}\n`);
    return exitCodes.ok;
  }
  if (positionals.length > 0) throw new CliError(exitCodes.usage, `unexpected argument '${positionals[0]}'`);
  const stored = await readStoredCredentials(io);
  const server = (values.server ?? io.env.CARTRIDGE_SERVER ?? stored?.server)?.replace(/\/+$/, '');
  if (!server) throw new CliError(exitCodes.usage, 'missing --server URL');
  try {
    new URL(server);
  } catch {
    throw new CliError(exitCodes.usage, `--server: '${server}' is not a URL`);
  }
  let token = values.token ?? io.env.CARTRIDGE_TOKEN;
  if (!token && io.readLine) token = (await io.readLine('API token: '))?.trim();
  if (!token) throw new CliError(exitCodes.usage, 'missing --token TOKEN (or CARTRIDGE_TOKEN)');
  const api = createCliApi({ server, token, io, retryDelayMs: retryDelayOf(io.env) });
  let me: Me;
  try {
    me = await api.call(routes.users.me);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      throw new CliError(exitCodes.auth, `the server refused the token (${error.code ?? error.status})`, { code: error.code, details: error.details });
    }
    throw error;
  }
  const path = await storeCredentials(io, { server, token });
  io.stdout(`signed in to ${server} as ${me.title}; token stored in ${path}\n`);
  return exitCodes.ok;
}

export async function runLogout(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {});
  if (values.help) {
    io.stdout(`${loginUsage}\n`);
    return exitCodes.ok;
  }
  if (positionals.length > 0) throw new CliError(exitCodes.usage, `unexpected argument '${positionals[0]}'`);
  io.stdout((await removeCredentials(io)) ? 'signed out: stored token removed\n' : 'no stored token\n');
  return exitCodes.ok;
}
