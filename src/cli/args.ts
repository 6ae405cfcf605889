import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError, exitCodes } from './errors.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs with unknown options and bad values as usage errors (exit 1). */
export function parseCommandArgs<T extends Options>(args: string[], options: T) {
  try {
    return parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(exitCodes.usage, error instanceof Error ? error.message : String(error));
  }
}

export function retryDelayOf(env: Record<string, string | undefined>): number {
  const value = Number(env.CARTRIDGE_RETRY_DELAY_MS);
  return Number.isFinite(value) && value >= 0 && env.CARTRIDGE_RETRY_DELAY_MS !== undefined && env.CARTRIDGE_RETRY_DELAY_MS !== '' ? value : 5000;
}
