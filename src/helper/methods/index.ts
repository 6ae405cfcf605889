import type { z } from 'zod';
import { localHelperMethods, type LocalHelperMethod, type LocalHelperReply } from '../../shared/schemas/local-helper.ts';
import type { HelperContext } from '../context.ts';
import { workdirLaunch } from './launch.ts';
import { workdirShowFolder } from './show-folder.ts';
import { transitionStatus, workdirCancel, workdirRepair, workdirTransition } from './transitions.ts';
import { version } from './version.ts';
import { workdirAdd, workdirDelete, workdirList, workspaceList } from './workdirs.ts';

type Handler<M extends LocalHelperMethod> = (ctx: HelperContext, input: z.infer<(typeof localHelperMethods)[M]['input']>) => Promise<LocalHelperReply<M>> | LocalHelperReply<M>;

/** Every method of the protocol (src/shared/schemas/local-helper.ts) and the function that answers it. */
export const methodHandlers: { [M in LocalHelperMethod]: Handler<M> } = {
  version: () => version(),
  workspace_list: (ctx) => workspaceList(ctx),
  workdir_list: (ctx) => workdirList(ctx),
  transition_status: transitionStatus,
  workdir_add: workdirAdd,
  workdir_transition: workdirTransition,
  workdir_cancel: workdirCancel,
  workdir_launch: workdirLaunch,
  workdir_repair: workdirRepair,
  workdir_delete: workdirDelete,
  workdir_show_folder: workdirShowFolder,
};

export function isMethod(name: string): name is LocalHelperMethod {
  return Object.hasOwn(localHelperMethods, name);
}
