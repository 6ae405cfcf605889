import { package_page_delete } from '../../../../shared/i18n/paraglide/messages/package_page_delete.js';
import { package_page_delete_refused_text } from '../../../../shared/i18n/paraglide/messages/package_page_delete_refused_text.js';
import { package_page_delete_refused_title } from '../../../../shared/i18n/paraglide/messages/package_page_delete_refused_title.js';
import { package_page_delete_text } from '../../../../shared/i18n/paraglide/messages/package_page_delete_text.js';
import { package_page_delete_title } from '../../../../shared/i18n/paraglide/messages/package_page_delete_title.js';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { toDisplayError } from '../../../lib/errors.ts';
import { trpc } from '../../../lib/trpc.ts';
import type { Package } from '../../../../shared/schemas/packages.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_page_delete, package_page_delete_refused_text, package_page_delete_refused_title, package_page_delete_text, package_page_delete_title };

/**
 * Delete with confirmation (Cancel focused); a package a version took meanwhile is refused with the
 * package page's words; other failures offer Retry. The lists are refreshed after either outcome.
 * `onDeleted` runs before that refresh, so a page showing the package can leave before it refetches it.
 */
export function usePackageDelete(projectId: string, { onDeleted }: { onDeleted?: () => void } = {}) {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const remove = trpc.packages.delete.useMutation();
  return async (pkg: Pick<Package, 'id' | 'title'>) => {
    const confirmed = await dialogs.confirm({
      title: m.package_page_delete_title(),
      message: m.package_page_delete_text({ title: pkg.title }),
      confirmLabel: m.package_page_delete(),
      danger: true,
      defaultFocus: 'cancel',
    });
    if (!confirmed) return;
    for (;;) {
      try {
        await remove.mutateAsync({ project: projectId, package: pkg.id });
        onDeleted?.();
        break;
      } catch (error) {
        if (toDisplayError(error).code === 'not_empty') {
          await dialogs.ok({ title: m.package_page_delete_refused_title(), message: <p data-error-code="not_empty">{m.package_page_delete_refused_text({ title: pkg.title })}</p> });
          break;
        }
        if ((await dialogs.error(error, { retry: true })) === 'ok') return;
      }
    }
    await utils.packages.invalidate();
  };
}
