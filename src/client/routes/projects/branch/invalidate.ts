import type { trpc } from '../../../lib/trpc.ts';

type Utils = ReturnType<typeof trpc.useUtils>;

/** After a publish, rename or delete: every list that shows branches, versions or publishes of the project. */
export async function invalidatePublishes(utils: Utils, projectId: string): Promise<void> {
  await Promise.all([
    utils.projects.branches.list.invalidate({ project: projectId }),
    utils.projects.versions.list.invalidate({ project: projectId }),
    utils.projects.versions.get.invalidate(),
    utils.projects.versions.history.invalidate(),
    utils.projects.versions.branches.invalidate(),
  ]);
}
