import type { LocalHelperInput, LocalHelperReply } from '../../shared/schemas/local-helper.ts';
import type { HelperContext } from '../context.ts';
import type { Engine } from '../engine.ts';
import { HelperError, messageOf } from '../errors.ts';
import { summariseFailure } from '../runtime/failure.ts';
import type { TransitionKind } from '../runtime/transitions.ts';
import type { HelperState, StateWorkdir } from '../state/schema.ts';
import { busy, checkPackageUrl, locateWorkdir } from './records.ts';

export async function transitionStatus(ctx: HelperContext, input: LocalHelperInput<'transition_status'>): Promise<LocalHelperReply<'transition_status'>> {
  if (input.id !== undefined) locateWorkdir(await ctx.store.read(), input.id);
  return ctx.transitions.status(input.id);
}

/**
 * Reserves the workdir inside a state update (so two calls cannot both start) and applies `prepare`;
 * the reservation is dropped again when the update fails.
 */
async function reserveAndPrepare<T>(ctx: HelperContext, id: string, kind: TransitionKind, prepare: (state: HelperState, total: (bytes: number) => void) => T): Promise<T> {
  let reserved = false;
  try {
    return await ctx.store.update((state) => {
      if (ctx.transitions.isRunning(id)) throw busy(id);
      let total = 0;
      const result = prepare(state, (bytes) => {
        total = bytes;
      });
      if (!ctx.transitions.reserve(id, kind, total)) throw busy(id);
      reserved = true;
      return result;
    });
  } catch (error) {
    if (reserved) ctx.transitions.release(id);
    throw error;
  }
}

/** Changes one workdir record after a background step; a vanished record or state file problem is logged. */
async function updateRecord(ctx: HelperContext, id: string, change: (record: StateWorkdir) => void): Promise<void> {
  try {
    await ctx.store.update((state) => {
      const record = state.workdirs.find((item) => item.id === id);
      if (record) change(record);
    });
  } catch (error) {
    ctx.log(`could not record the end of workdir ${id}'s transition: ${messageOf(error)}`);
  }
}

/**
 * workdir_transition: checks, stores the package the workdir is becoming, and starts the engine in the
 * background (answers at once). Success: installed with the new size, index hash and entrypoint.
 * Failure or cancel: the old files stay launchable (state installing, resumable); a failure before
 * anything was ever installed is damaged.
 */
export async function workdirTransition(ctx: HelperContext, input: LocalHelperInput<'workdir_transition'>): Promise<LocalHelperReply<'workdir_transition'>> {
  const { id, package_url, index_url, package_size, package_entrypoint, ...pkg } = input;
  const { dir, metaDir } = await reserveAndPrepare(ctx, id, 'transition', (state, total) => {
    const located = locateWorkdir(state, id);
    checkPackageUrl(state, package_url, 'package_url');
    if (index_url !== undefined) checkPackageUrl(state, index_url, 'index_url');
    const record = located.workdir;
    record.package = pkg;
    record.package_url = package_url;
    record.target = { entrypoint: package_entrypoint, package_size };
    record.state = 'installing';
    delete record.error;
    delete record.error_code;
    total(package_size);
    return located;
  });

  ctx.transitions.start(id, async (signal, onProgress) => {
    let engine: Engine | undefined;
    try {
      engine = await ctx.engine();
      const result = await engine.transitionWorkdir({ dir, metaDir, packageUrl: package_url, ...(index_url ? { indexUrl: index_url } : {}), fetch: ctx.fetch, signal, onProgress });
      await updateRecord(ctx, id, (record) => {
        record.state = 'installed';
        record.size = result.size;
        record.index_hash = result.indexHash;
        record.entrypoint = record.target?.entrypoint ?? package_entrypoint;
        delete record.target;
        delete record.error;
        delete record.error_code;
      });
      ctx.log(`workdir ${id}: installed ${result.files} files (${result.size} bytes)`);
    } catch (error) {
      const failure = summariseFailure(error, signal, 'transition');
      const installed = await engine?.readInstalled(metaDir).catch(() => undefined);
      await updateRecord(ctx, id, (record) => {
        record.state = failure.code === 'cancelled' || installed ? 'installing' : 'damaged';
        record.error = failure.message;
        record.error_code = failure.code;
      });
      ctx.log(`workdir ${id}: transition ${failure.code === 'cancelled' ? 'cancelled' : `failed: ${messageOf(error)}`}`);
    }
  });
  return { ok: true };
}

/**
 * workdir_repair: re-checks the installed files against the receipt and re-fetches what is damaged,
 * from package_url when given (a fresh signed URL), else from the last URL workdir_transition had.
 */
export async function workdirRepair(ctx: HelperContext, input: LocalHelperInput<'workdir_repair'>): Promise<LocalHelperReply<'workdir_repair'>> {
  const { dir, metaDir, url } = await reserveAndPrepare(ctx, input.id, 'repair', (state, total) => {
    const located = locateWorkdir(state, input.id);
    const record = located.workdir;
    if (record.target || !record.index_hash) {
      throw new HelperError(
        'not_installed',
        record.index_hash ? 'An install or update of this workdir was interrupted: press Update or Install to finish it first' : 'Nothing is installed in this workdir: install it first',
        { workdir: input.id },
      );
    }
    const url = input.package_url ?? record.package_url;
    if (!url) throw new HelperError('download_failed', 'The helper has no download link for this package: press Update or Install again', { workdir: input.id });
    checkPackageUrl(state, url, 'package_url');
    if (input.package_url) record.package_url = input.package_url;
    total(record.size);
    return { ...located, url };
  });

  ctx.transitions.start(input.id, async (signal, onProgress) => {
    try {
      const engine = await ctx.engine();
      const result = await engine.repairWorkdir({ dir, metaDir, packageUrl: url, fetch: ctx.fetch, signal, onProgress });
      await updateRecord(ctx, input.id, (record) => {
        record.state = 'installed';
        record.size = result.size;
        record.index_hash = result.indexHash;
        delete record.error;
        delete record.error_code;
      });
      ctx.log(`workdir ${input.id}: repaired ${result.repaired.length} files`);
    } catch (error) {
      const failure = summariseFailure(error, signal, 'repair');
      await updateRecord(ctx, input.id, (record) => {
        if (failure.code !== 'cancelled') record.state = 'damaged';
        record.error = failure.message;
        record.error_code = failure.code;
      });
      ctx.log(`workdir ${input.id}: repair ${failure.code === 'cancelled' ? 'cancelled' : `failed: ${messageOf(error)}`}`);
    }
  });
  return { ok: true };
}

/** workdir_cancel: stops the running transition (if any) and answers once it stopped. */
export async function workdirCancel(ctx: HelperContext, input: LocalHelperInput<'workdir_cancel'>): Promise<LocalHelperReply<'workdir_cancel'>> {
  locateWorkdir(await ctx.store.read(), input.id);
  if (ctx.transitions.kindOf(input.id) !== 'delete') await ctx.transitions.cancel(input.id);
  return { ok: true };
}
