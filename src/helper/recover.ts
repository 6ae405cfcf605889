import type { HelperContext } from './context.ts';
import { messageOf } from './errors.ts';
import { locateWorkdir } from './methods/records.ts';

/**
 * At start, every workdir left `installing` (the helper stopped or crashed during a transition) goes
 * through the engine's recoverWorkdir (no network): a swap the crash interrupted is finished, or the old
 * version stays. The record then says what is really installed; an unfinished transition stays
 * `installing` (resumable: the page's Update or Install continues from the staging).
 */
export async function recoverInterrupted(ctx: HelperContext): Promise<void> {
  const state = await ctx.store.read();
  const interrupted = state.workdirs.filter((record) => record.state === 'installing');
  if (interrupted.length === 0) return;
  let engine;
  try {
    engine = await ctx.engine();
  } catch (error) {
    ctx.log(`cannot recover interrupted installs: the install engine did not load (${messageOf(error)})`);
    return;
  }
  for (const record of interrupted) {
    let located;
    try {
      located = locateWorkdir(state, record.id);
    } catch {
      continue;
    }
    let installed;
    try {
      installed = await engine.recoverWorkdir({ dir: located.dir, metaDir: located.metaDir });
    } catch (error) {
      ctx.log(`workdir ${record.id}: recovery failed: ${messageOf(error)}`);
      await ctx.store.update((draft) => {
        const item = draft.workdirs.find((candidate) => candidate.id === record.id);
        if (!item) return;
        item.state = 'damaged';
        item.error = `Recovery after an interrupted install failed: ${messageOf(error)}; press Install again`;
        item.error_code = 'unexpected_error';
      });
      continue;
    }
    await ctx.store.update((draft) => {
      const item = draft.workdirs.find((candidate) => candidate.id === record.id);
      if (!item) return;
      if (installed && installed.indexHash !== item.index_hash) {
        // The crash came after the new version was in place: the transition is done.
        item.state = 'installed';
        item.size = installed.size;
        item.index_hash = installed.indexHash;
        item.entrypoint = item.target?.entrypoint ?? item.entrypoint;
        delete item.target;
        delete item.error;
        delete item.error_code;
        return;
      }
      if (installed) {
        item.size = installed.size;
        item.index_hash = installed.indexHash;
      } else {
        item.size = 0;
        item.entrypoint = [];
        delete item.index_hash;
      }
      if (item.error_code !== 'cancelled') {
        item.error = 'Interrupted (the helper stopped): press Update or Install again to resume';
        item.error_code = 'interrupted';
      }
    });
    ctx.log(`workdir ${record.id}: recovered after an interrupted transition (${installed ? 'files in place' : 'nothing installed yet'})`);
  }
}
