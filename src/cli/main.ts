import { ZodError } from 'zod';
import { AppError } from '../server/errors.ts';
import { ConfigError } from '../server/config.ts';
import { adminUsage, runAdminCommand } from './admin.ts';

const usage = `cartridge: command-line client for Cartridge\n\n${adminUsage}`;

async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case 'admin':
      return runAdminCommand(rest, console.log);
    case undefined:
    case 'help':
    case '--help':
      console.log(usage);
      return command === undefined ? 2 : 0;
    default:
      console.error(`cartridge: unknown command ${command}\n\n${usage}`);
      return 2;
  }
}

try {
  process.exit(await main(process.argv.slice(2)));
} catch (error) {
  if (error instanceof AppError || error instanceof ConfigError) {
    console.error(`cartridge: ${error.message}`);
    process.exit(1);
  }
  if (error instanceof ZodError) {
    console.error(`cartridge: Invalid \`${String(error.issues[0]?.path[0] ?? 'input')}\``);
    process.exit(1);
  }
  throw error;
}
