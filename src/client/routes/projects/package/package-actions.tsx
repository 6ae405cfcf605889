import { useLocation } from 'wouter';
import { edit_tags_title } from '../../../../shared/i18n/paraglide/messages/edit_tags_title.js';
import { package_page_actions_label } from '../../../../shared/i18n/paraglide/messages/package_page_actions_label.js';
import { package_page_delete } from '../../../../shared/i18n/paraglide/messages/package_page_delete.js';
import { package_page_rename } from '../../../../shared/i18n/paraglide/messages/package_page_rename.js';
import { package_page_rename_label } from '../../../../shared/i18n/paraglide/messages/package_page_rename_label.js';
import { package_page_rename_title } from '../../../../shared/i18n/paraglide/messages/package_page_rename_title.js';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { EditTagsDialog } from '../../../dialogs/edit-tags-dialog.tsx';
import { trpc } from '../../../lib/trpc.ts';
import type { Package } from '../../../../shared/schemas/packages.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { branchHref, projectHref, versionHref } from '../links.ts';
import { can } from '../project-frame.tsx';
import { usePackageDelete } from '../packages/use-package-delete.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  edit_tags_title,
  package_page_actions_label,
  package_page_delete,
  package_page_rename,
  package_page_rename_label,
  package_page_rename_title,
};

/** The longest package title the server accepts (packageTitleSchema). */
const TITLE_MAX_LENGTH = 128;

export type PackageVia = { version?: string; branch?: string };

/** Edit tags, rename, delete: each only with its project action; none → no toolbar. */
export function PackageActions({ project, pkg, via }: { project: Project; pkg: Package; via: PackageVia }) {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const [, navigate] = useLocation();
  const patch = trpc.packages.patch.useMutation();
  // Back to where the package was reached from: its version, else the project.
  const startDelete = usePackageDelete(project.id, {
    onDeleted: () => navigate(via.version ? versionHref(project.id, via.version, via.branch) : via.branch ? branchHref(project.id, via.branch) : projectHref(project.id)),
  });
  const canPatch = can(project, 'patchPackage');
  const canDelete = can(project, 'deletePackage');
  if (!canPatch && !canDelete) return null;

  const editTags = async () => {
    const saved = await dialogs.open<boolean>((close) => (
      <EditTagsDialog
        initial={pkg.tags}
        onSubmit={async (tags) => {
          await patch.mutateAsync({ project: project.id, package: pkg.id, tags });
        }}
        onClose={close}
      />
    ));
    if (saved) await utils.packages.invalidate();
  };

  const rename = async () => {
    const title = await dialogs.prompt({ title: m.package_page_rename_title(), label: m.package_page_rename_label(), initialValue: pkg.title, maxLength: TITLE_MAX_LENGTH, confirmLabel: m.package_page_rename() });
    if (title === null || title.trim() === pkg.title) return;
    const done = await dialogs.attempt(() => patch.mutateAsync({ project: project.id, package: pkg.id, title: title.trim() }));
    if (done) await utils.packages.invalidate();
  };

  return (
    <div className="actions package_actions" role="group" aria-label={m.package_page_actions_label()}>
      {canPatch ? (
        <button type="button" className="button" onClick={() => void editTags()}>
          {m.edit_tags_title()}
        </button>
      ) : null}
      {canPatch ? (
        <button type="button" className="button" onClick={() => void rename()}>
          {m.package_page_rename()}
        </button>
      ) : null}
      {canDelete ? (
        <button type="button" className="button button_quiet button_danger_text" onClick={() => void startDelete(pkg)}>
          {m.package_page_delete()}
        </button>
      ) : null}
    </div>
  );
}
