import { trpc } from '../../../lib/trpc.ts';

/**
 * Invalidations after a change on the manage page, one per kind of data; a project's title and public
 * flag also show in the caller's project list and on the store page, so those go stale with it.
 */
export function useProjectRefresh(projectId: string) {
  const utils = trpc.useUtils();
  const scope = { project: projectId };
  return {
    project: () => Promise.all([utils.projects.get.invalidate(scope), utils.projects.mine.invalidate(), utils.store.invalidate()]),
    branches: () => Promise.all([utils.projects.branches.list.invalidate(scope), utils.store.invalidate()]),
    users: () => utils.projects.users.list.invalidate(scope),
    invites: () => utils.projects.invites.list.invalidate(scope),
    /** After leaving or deleting: everything cached about projects may now be wrong. */
    all: () => Promise.all([utils.projects.invalidate(), utils.store.invalidate()]),
  };
}
