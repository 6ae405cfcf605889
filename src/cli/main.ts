import { runDownload, downloadUsage } from './commands/download.ts';
import { loginUsage, runLogin, runLogout } from './commands/login.ts';
import { pushUsage, runPush } from './commands/push.ts';
import { runStatus, statusUsage } from './commands/status.ts';
import { CliError, describeFailure, exitCodeHelp, exitCodes, failureText } from './errors.ts';
import { completeIo, processIo, type CliIo } from './io.ts';
import { cliVersion } from './version.ts';

export const usage = `cartridge: command-line client for Cartridge

cartridge --version, -V
  Prints the version of this client.

${loginUsage}

${pushUsage}

${downloadUsage}

${statusUsage}

Environment: CARTRIDGE_SERVER and CARTRIDGE_TOKEN override the stored login (CI);
XDG_CONFIG_HOME and XDG_CACHE_HOME move ~/.config/cartridge and ~/.cache/cartridge.

${exitCodeHelp}`;

/**
 * Runs one command line and resolves with its exit code; never calls process.exit, so tests run it
 * in-process with their own env and output.
 */
export async function main(argv: string[], partialIo: Partial<CliIo> = {}): Promise<number> {
  const io = completeIo(partialIo);
  const [command, ...rest] = argv;
  // Options end at '--'; what follows is positional even when it reads --json.
  const end = argv.indexOf('--');
  const json = (end === -1 ? argv : argv.slice(0, end)).includes('--json');
  try {
    switch (command) {
      case 'login':
        return await runLogin(rest, io);
      case 'logout':
        return await runLogout(rest, io);
      case 'push':
        return await runPush(rest, io);
      case 'download':
        return await runDownload(rest, io);
      case 'status':
        return await runStatus(rest, io);
      case '--version':
      case '-V':
        io.stdout(`cartridge ${cliVersion}\n`);
        return exitCodes.ok;
      case 'help':
      case '--help':
      case '-h':
        io.stdout(`${usage}\n`);
        return exitCodes.ok;
      case undefined:
        io.stderr(`${usage}\n`);
        return exitCodes.usage;
      default:
        if (json) throw new CliError(exitCodes.usage, `unknown command ${command}`);
        io.stderr(`cartridge: unknown command ${command}\n\n${usage}\n`);
        return exitCodes.usage;
    }
  } catch (error) {
    const failure = describeFailure(error);
    io.stderr(`${io.isTTY ? '\n' : ''}${failureText(failure, json)}`);
    return failure.exitCode;
  }
}

if (import.meta.main) {
  const controller = new AbortController();
  let interrupted = false;
  process.on('SIGINT', () => {
    // The second Ctrl-C does not wait: the resume state is saved after every part anyway.
    if (interrupted) process.exit(130);
    interrupted = true;
    controller.abort(new Error('interrupted'));
  });
  const code = await main(process.argv.slice(2), { ...processIo(), signal: controller.signal });
  process.exit(interrupted ? 130 : code);
}
