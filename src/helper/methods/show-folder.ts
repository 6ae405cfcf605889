import { mkdir } from 'node:fs/promises';
import type { LocalHelperInput, LocalHelperReply } from '../../shared/schemas/local-helper.ts';
import type { HelperContext } from '../context.ts';
import { HelperError, messageOf } from '../errors.ts';
import { spawnDetached } from '../runtime/processes.ts';
import { locateWorkdir } from './records.ts';

/** The file manager that opens a folder, per platform (argv, never a shell). */
function openerOf(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'open';
  if (platform === 'win32') return 'explorer.exe';
  return 'xdg-open';
}

/** workdir_show_folder: opens the workdir's folder in the file manager (recreating it if the user removed it). */
export async function workdirShowFolder(ctx: HelperContext, input: LocalHelperInput<'workdir_show_folder'>): Promise<LocalHelperReply<'workdir_show_folder'>> {
  const { dir } = locateWorkdir(await ctx.store.read(), input.id);
  await mkdir(dir, { recursive: true });
  const opener = openerOf(ctx.platform);
  try {
    await spawnDetached(opener, [dir], dir);
  } catch (error) {
    throw new HelperError('unexpected_error', `Could not run ${opener} (${messageOf(error)}): open ${dir} yourself`, { path: dir });
  }
  return { ok: true };
}
