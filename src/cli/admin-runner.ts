import type { CliIo } from './io.ts';

/**
 * `cartridge admin ...`: opens the instance database, so the server code is loaded only when asked
 * for. The standalone client (src/tools/build-cli.ts) swaps this module for admin-standalone.ts.
 */
export async function runAdmin(args: string[], io: CliIo): Promise<number> {
  const [{ runAdminCommand }, { AppError }, { ConfigError }, { ZodError }] = await Promise.all([
    import('./admin.ts'),
    import('../server/errors.ts'),
    import('../server/config.ts'),
    import('zod'),
  ]);
  try {
    return await runAdminCommand(args, (line) => io.stdout(`${line}\n`));
  } catch (error) {
    if (error instanceof AppError || error instanceof ConfigError) {
      io.stderr(`cartridge: ${error.message}\n`);
      return 1;
    }
    if (error instanceof ZodError) {
      io.stderr(`cartridge: Invalid \`${String(error.issues[0]?.path[0] ?? 'input')}\`\n`);
      return 1;
    }
    throw error;
  }
}
