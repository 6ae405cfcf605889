/**
 * cartridge-helper: the Cartridge companion app (issue 17, spec §7 "Local helper"). Web pages of
 * trusted origins call it on 127.0.0.1:17303 to install, update, repair and launch games; the command
 * line manages trusted origins and workspaces. Threat model: docs/en/local-app.md.
 */
import { LOCAL_HELPER_PORT } from '../shared/schemas/local-helper.ts';
import { trust, trusted, untrust, workspace } from './cli/commands.ts';
import { exitCodes, processIo, UsageError, type HelperIo } from './cli/io.ts';
import { usage } from './cli/usage.ts';
import { messageOf } from './errors.ts';
import { helperVersion } from './methods/version.ts';
import { defaultWorkspacePath, helperHome, statePathOf } from './paths.ts';
import { serve } from './serve.ts';
import { openStateStore } from './state/store.ts';

function parseServeArgs(args: string[]): { port: number } {
  let port = LOCAL_HELPER_PORT;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const value = arg.startsWith('--port=') ? arg.slice('--port='.length) : arg === '--port' ? args[++index] : undefined;
    if (value === undefined) throw new UsageError(arg === '--port' ? '--port needs a number' : `unknown option ${arg.slice(0, 64)}`);
    if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new UsageError(`--port: not a port number: ${value.slice(0, 64)}`);
    port = Number(value);
  }
  return { port };
}

/** Runs one command line and resolves with its exit code (the server resolves when it stops). */
export async function main(argv: string[], io: HelperIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  const store = () => openStateStore(statePathOf(helperHome(io.env)), defaultWorkspacePath(io.env));
  try {
    switch (command) {
      case '--help':
      case '-h':
      case 'help':
        io.stdout(`${usage}\n`);
        return exitCodes.ok;
      case '--version':
      case '-v':
      case 'version':
        io.stdout(`cartridge-helper ${helperVersion}\n`);
        return exitCodes.ok;
      case 'trust':
        return await trust(store(), rest, io);
      case 'untrust':
        return await untrust(store(), rest, io);
      case 'trusted':
        return await trusted(store(), rest, io);
      case 'workspace':
      case 'workspaces':
        return await workspace(store(), rest, io);
      case 'serve':
        return await serve(store(), parseServeArgs(rest).port, io);
      default:
        if (command === undefined || command.startsWith('--port')) return await serve(store(), parseServeArgs(argv).port, io);
        throw new UsageError(`unknown command ${command.slice(0, 64)}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`cartridge-helper: ${error.message} (see cartridge-helper --help)\n`);
      return exitCodes.usage;
    }
    io.stderr(`cartridge-helper: ${messageOf(error)}\n`);
    return exitCodes.failed;
  }
}

if (import.meta.main) {
  process.exit(await main(process.argv.slice(2)));
}
