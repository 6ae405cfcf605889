import { exitCodes } from './errors.ts';
import type { CliIo } from './io.ts';

/** admin-runner.ts in the standalone executable: the database tools stay with the server. */
export async function runAdmin(_args: string[], io: CliIo): Promise<number> {
  io.stderr('cartridge: `admin` runs on the server machine: `npm run cartridge -- admin ...` (or `bun src/cli/main.ts admin ...`)\n');
  return exitCodes.usage;
}
