import type { Workdir } from '../../shared/schemas/local-helper.ts';
import type { HelperContext } from '../context.ts';
import { HelperError, notFound } from '../errors.ts';
import { originOfUrl } from '../origins.ts';
import { metaDirOf, workdirDirOf } from '../paths.ts';
import type { HelperState, StateWorkdir, StateWorkspace } from '../state/schema.ts';

export type Located = { workdir: StateWorkdir; workspace: StateWorkspace; dir: string; metaDir: string };

/** The workdir record, its workspace and its two folders; not_found when either record is missing. */
export function locateWorkdir(state: HelperState, id: string): Located {
  const workdir = state.workdirs.find((item) => item.id === id);
  if (!workdir) throw notFound('workdir', id);
  const workspace = state.workspaces.find((item) => item.id === workdir.workspace_id);
  if (!workspace) throw new HelperError('not_found', `The workspace of workdir ${id} is gone`, { workdir: id, workspace: workdir.workspace_id });
  return { workdir, workspace, dir: workdirDirOf(workspace.local_path, workdir.name), metaDir: metaDirOf(workspace.local_path, workdir.id) };
}

/** The record as the protocol shows it (spec §3 Local workdir), with what runs now. */
export function workdirView(ctx: HelperContext, state: HelperState, record: StateWorkdir): Workdir {
  const workspace = state.workspaces.find((item) => item.id === record.workspace_id);
  return {
    ...(record.package ?? {}),
    id: record.id,
    workspace_id: record.workspace_id,
    local_path: workspace ? workdirDirOf(workspace.local_path, record.name) : '',
    state: record.state,
    size: record.size,
    entrypoint: record.entrypoint,
    ...(record.error === undefined ? {} : { error: record.error }),
    ...(record.error_code === undefined ? {} : { error_code: record.error_code }),
    running: ctx.processes.isRunning(record.id),
  };
}

/** A package URL must come from an origin the user trusts (the same list as the pages'). */
export function checkPackageUrl(state: HelperState, url: string, field: string): void {
  const origin = originOfUrl(url);
  if (!origin || !state.trusted_origins.includes(origin)) {
    throw new HelperError('untrusted_url', `${field} is not on a trusted origin${origin ? ` (${origin})` : ''}: the helper downloads only from origins trusted with \`cartridge-helper trust\``, {
      field,
      ...(origin ? { origin } : {}),
    });
  }
}

export function busy(id: string): HelperError {
  return new HelperError('busy', `A transition is running on workdir ${id}: wait for it or cancel it`, { workdir: id });
}
