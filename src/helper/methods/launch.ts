import { dirname } from 'node:path';
import type { LocalHelperInput, LocalHelperReply } from '../../shared/schemas/local-helper.ts';
import type { HelperContext } from '../context.ts';
import { HelperError, messageOf } from '../errors.ts';
import { spawnDetached } from '../runtime/processes.ts';
import { makeExecutable, resolveEntrypoint } from './entrypoint.ts';
import { locateWorkdir } from './records.ts';

/**
 * workdir_launch: starts the installed entrypoint (also the old version while an update is running or
 * was interrupted), detached in its own process group, from the entrypoint's folder, output ignored.
 */
export async function workdirLaunch(ctx: HelperContext, input: LocalHelperInput<'workdir_launch'>): Promise<LocalHelperReply<'workdir_launch'>> {
  const { workdir, dir } = locateWorkdir(await ctx.store.read(), input.id);
  if (!workdir.index_hash) throw new HelperError('not_installed', 'Nothing is installed in this workdir yet', { workdir: input.id });
  const file = await resolveEntrypoint(dir, workdir.entrypoint);
  try {
    await makeExecutable(file);
  } catch (error) {
    throw new HelperError('bad_entrypoint', `Could not make ${file} executable: ${messageOf(error)}`, { entrypoint: workdir.entrypoint.join('/') });
  }
  let started;
  try {
    started = await spawnDetached(file, [], dirname(file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new HelperError('bad_entrypoint', `Could not start ${file}${code ? ` (${code})` : ''}: ${messageOf(error)}`, { entrypoint: workdir.entrypoint.join('/'), ...(code ? { reason: code } : {}) });
  }
  ctx.processes.track(input.id, started.pid, started.exited);
  ctx.log(`workdir ${input.id}: launched ${file} (pid ${started.pid})`);
  return { ok: true, pid: started.pid };
}
