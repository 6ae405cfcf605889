import { useQueryClient } from '@tanstack/react-query';
import { local_uninstall } from '../../../shared/i18n/paraglide/messages/local_uninstall.js';
import { local_uninstall_text } from '../../../shared/i18n/paraglide/messages/local_uninstall_text.js';
import { local_uninstall_title } from '../../../shared/i18n/paraglide/messages/local_uninstall_title.js';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import type { Workdir } from '../../../shared/schemas/local-helper.ts';
import { rich, slot } from '../i18n/rich.tsx';
import { trpc } from '../trpc.ts';
import { callHelper } from './helper.ts';
import { invalidateLocalApp } from './use-local-app.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { local_uninstall, local_uninstall_text, local_uninstall_title };

/** The title a workdir is shown with: its project and package, else its folder. */
export function workdirTitle(workdir: Workdir): string {
  if (workdir.project_title && workdir.package_title) return `${workdir.project_title} · ${workdir.package_title}`;
  return workdir.project_title ?? workdir.package_title ?? workdir.local_path;
}

/**
 * Launch, Repair, Uninstall and Show folder of a workdir (spec §2 'local'): each calls the helper, shows a
 * failure in the error dialog (Retry runs it again), and refetches the lists. Uninstall asks first
 * (danger, Cancel focused) and deletes the files. Each resolves true when it was done.
 */
export function useWorkdirActions() {
  const queryClient = useQueryClient();
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  // Repair re-fetches damaged chunks: a fresh signed URL of the installed package (the one the install
  // had may have expired). The project route serves members and, for public branches, anyone; when it
  // refuses, the helper falls back to the URL it has.
  const freshUrl = async (workdir: Workdir): Promise<string | undefined> => {
    if (!workdir.project_id || !workdir.package_id) return undefined;
    try {
      return (await utils.packageDownloads.url.fetch({ project: workdir.project_id, package: workdir.package_id }, { staleTime: 0, retry: false })).url;
    } catch {
      return undefined;
    }
  };
  const run = async (action: () => Promise<unknown>, started?: Parameters<typeof invalidateLocalApp>[1]): Promise<boolean> => {
    const done = (await dialogs.attempt(async () => (await action(), true))) ?? false;
    await invalidateLocalApp(queryClient, done ? started : undefined);
    return done;
  };
  return {
    launch: (workdir: Workdir) => run(() => callHelper('workdir_launch', { id: workdir.id })),
    repair: (workdir: Workdir) =>
      run(async () => {
        const url = await freshUrl(workdir);
        return callHelper('workdir_repair', url ? { id: workdir.id, package_url: url } : { id: workdir.id });
      }, { id: workdir.id, kind: 'repair' }),
    showFolder: (workdir: Workdir) => run(() => callHelper('workdir_show_folder', { id: workdir.id })),
    async uninstall(workdir: Workdir): Promise<boolean> {
      const confirmed = await dialogs.confirm({
        title: m.local_uninstall_title(),
        message: (
          <p>
            {rich(m.local_uninstall_text({ title: slot('title'), path: slot('path') }), {
              title: <bdi>{workdirTitle(workdir)}</bdi>,
              path: (
                <bdi dir="ltr" className="local_path">
                  {workdir.local_path}
                </bdi>
              ),
            })}
          </p>
        ),
        confirmLabel: m.local_uninstall(),
        danger: true,
        defaultFocus: 'cancel',
      });
      if (!confirmed) return false;
      return run(() => callHelper('workdir_delete', { id: workdir.id, deleteFiles: true }));
    },
  };
}
