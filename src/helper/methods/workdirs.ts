import { lstat, mkdir, readdir, rm, rmdir } from 'node:fs/promises';
import type { LocalHelperInput, LocalHelperReply } from '../../shared/schemas/local-helper.ts';
import type { HelperContext } from '../context.ts';
import { HelperError, messageOf, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { metaDirOf, workdirDirOf } from '../paths.ts';
import { busy, locateWorkdir, workdirView } from './records.ts';
import { checkWorkdirName, sameFolderName } from './workdir-name.ts';

export async function workspaceList(ctx: HelperContext): Promise<LocalHelperReply<'workspace_list'>> {
  const state = await ctx.store.read();
  return state.workspaces.map((workspace) => ({ id: workspace.id, local_path: workspace.local_path }));
}

export async function workdirList(ctx: HelperContext): Promise<LocalHelperReply<'workdir_list'>> {
  const state = await ctx.store.read();
  return state.workdirs.map((record) => workdirView(ctx, state, record));
}

/** A folder that may become a workdir: missing, or empty. Anything else is the user's, not ours. */
async function checkFreeFolder(dir: string, name: string): Promise<void> {
  let stats;
  try {
    stats = await lstat(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (!stats.isDirectory() || (await readdir(dir)).length > 0) {
    throw new HelperError('name_conflict', `${name} already exists in the workspace and is not empty: choose another name`, { field: 'name' });
  }
}

export async function workdirAdd(ctx: HelperContext, input: LocalHelperInput<'workdir_add'>): Promise<LocalHelperReply<'workdir_add'>> {
  checkWorkdirName(input.name);
  return ctx.store.update(async (state) => {
    const workspace = state.workspaces.find((item) => item.id === input.workspace);
    if (!workspace) throw notFound('workspace', input.workspace);
    if (state.workdirs.some((item) => item.workspace_id === workspace.id && sameFolderName(item.name, input.name, ctx.platform))) {
      throw new HelperError('name_conflict', `The workspace already has a workdir named ${input.name}`, { field: 'name' });
    }
    const dir = workdirDirOf(workspace.local_path, input.name);
    await checkFreeFolder(dir, input.name);
    const id = newId();
    try {
      await mkdir(dir, { recursive: true });
      await mkdir(metaDirOf(workspace.local_path, id), { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new HelperError('unexpected_error', `Could not create the folder ${dir}: ${messageOf(error)}`, { path: dir });
    }
    state.workdirs.push({ id, workspace_id: workspace.id, name: input.name, state: 'empty', entrypoint: [], size: 0 });
    return { id };
  });
}

/**
 * Forgets a workdir; with deleteFiles its package files (through the engine) and its private folder
 * go first. Refused while a transition runs on it; the workdir is reserved while its files go, so no
 * transition starts meanwhile (and the state file is not locked during a long delete).
 */
export async function workdirDelete(ctx: HelperContext, input: LocalHelperInput<'workdir_delete'>): Promise<LocalHelperReply<'workdir_delete'>> {
  const { dir, metaDir } = await ctx.store.update((state) => {
    const located = locateWorkdir(state, input.id);
    if (!ctx.transitions.reserve(input.id, 'delete', 0)) throw busy(input.id);
    return located;
  });
  try {
    if (input.deleteFiles) {
      try {
        const engine = await ctx.engine();
        await engine.removeWorkdirFiles({ dir, metaDir });
        await rm(metaDir, { recursive: true, force: true });
        await rmdir(dir).catch(() => undefined);
      } catch (error) {
        throw new HelperError('unexpected_error', `Could not delete the files of ${dir}: ${messageOf(error)}`, { path: dir });
      }
    }
    await ctx.store.update((state) => {
      state.workdirs = state.workdirs.filter((item) => item.id !== input.id);
    });
  } finally {
    ctx.transitions.release(input.id);
  }
  return { ok: true };
}
