import { useLocation } from 'wouter';
import { branch_actions_label } from '../../../../shared/i18n/paraglide/messages/branch_actions_label.js';
import { branch_delete } from '../../../../shared/i18n/paraglide/messages/branch_delete.js';
import { branch_delete_text } from '../../../../shared/i18n/paraglide/messages/branch_delete_text.js';
import { branch_delete_title } from '../../../../shared/i18n/paraglide/messages/branch_delete_title.js';
import { branch_publish_existing } from '../../../../shared/i18n/paraglide/messages/branch_publish_existing.js';
import { branch_publish_new } from '../../../../shared/i18n/paraglide/messages/branch_publish_new.js';
import { branch_rename } from '../../../../shared/i18n/paraglide/messages/branch_rename.js';
import { branch_rename_title } from '../../../../shared/i18n/paraglide/messages/branch_rename_title.js';
import { version_publish } from '../../../../shared/i18n/paraglide/messages/version_publish.js';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { VersionFormDialog, type PackagesPicker, type VersionFormValues } from '../../../dialogs/new-version-dialog.tsx';
import { VersionUploadList } from '../../../dialogs/new-version/version-upload-list.tsx';
import { SelectVersionDialog } from '../../../dialogs/select-version-dialog.tsx';
import { trpc } from '../../../lib/trpc.ts';
import type { Branch } from '../../../../shared/schemas/branches.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { nextVersionTitle, type Version } from '../../../../shared/schemas/versions.ts';
import { promptBranchTitle } from '../branch-title-prompt.ts';
import { projectHref } from '../links.ts';
import { can } from '../project-frame.tsx';
import { invalidatePublishes } from './invalidate.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { branch_actions_label, branch_delete, branch_delete_text, branch_delete_title, branch_publish_existing, branch_publish_new, branch_rename, branch_rename_title, version_publish };

/** Publish new / existing, rename, delete: each only when userPossibleActions allows it; none → no toolbar. */
export function BranchActions({ project, branch }: { project: Project; branch: Branch }) {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const [, navigate] = useLocation();
  const canPublish = can(project, 'publishVersion');
  const canRename = can(project, 'patchBranch');
  const canDelete = can(project, 'deleteBranch');
  const versions = trpc.projects.versions.list.useQuery({ project: project.id }, { enabled: canPublish });
  const createVersion = trpc.projects.versions.create.useMutation();
  const patchVersion = trpc.projects.versions.patch.useMutation();
  const publish = trpc.projects.versions.publish.useMutation();
  const patchBranch = trpc.projects.branches.patch.useMutation();
  const deleteBranch = trpc.projects.branches.delete.useMutation();
  if (!canPublish && !canRename && !canDelete) return null;

  const publishNew = async () => {
    const known = await utils.projects.versions.list.fetch({ project: project.id }).catch(() => versions.data);
    const latest = known?.[0]?.title;
    const quotas = await utils.projects.quotas.fetch({ project: project.id }).catch(() => null);
    // A new package updates the current package with the same tags (as the CLI's push does): only the
    // chunks that one lacks travel.
    const current = branch.currentVersion ? await utils.packages.ofVersion.fetch({ project: project.id, version: branch.currentVersion.version }).catch(() => []) : [];
    const currentPackages = current.filter((item) => item.status === 'ready').map((item) => ({ id: item.id, title: item.title, tags: item.tags, entrypoint: item.entrypoint }));
    const packages: PackagesPicker = ({ onChange, beforeUpload }) => (
      <VersionUploadList projectId={project.id} maxSize={quotas?.packageSize ?? null} currentPackages={currentPackages} onChange={onChange} beforeUpload={beforeUpload} />
    );
    // Created once, then only published: a failed publish retried from the dialog must not create twice.
    let created: Version | undefined;
    const submit = async (values: VersionFormValues) => {
      if (!created) {
        created = await createVersion.mutateAsync({ project: project.id, ...values });
      } else if (created.title !== values.title || created.description !== values.description) {
        created = await patchVersion.mutateAsync({ project: project.id, version: created.id, title: values.title, description: values.description });
      }
      await publish.mutateAsync({ project: project.id, version: created.id, branch: branch.id });
    };
    await dialogs.open<boolean>((close) => (
      <VersionFormDialog
        title={m.branch_publish_new()}
        confirmLabel={m.version_publish()}
        initial={{ title: nextVersionTitle(latest ?? branch.currentVersion?.title), description: '' }}
        projectId={project.id}
        takenTitles={known?.map((version) => version.title)}
        withPackages
        packages={packages}
        onSubmit={submit}
        onClose={close}
      />
    ));
    if (created) await invalidatePublishes(utils, project.id);
  };

  const publishExisting = async () => {
    const done = await dialogs.open<boolean>((close) => (
      <SelectVersionDialog
        projectId={project.id}
        currentVersionId={branch.currentVersion?.version}
        onSubmit={async (versionId) => {
          await publish.mutateAsync({ project: project.id, version: versionId, branch: branch.id });
        }}
        onClose={close}
      />
    ));
    if (done) await invalidatePublishes(utils, project.id);
  };

  const rename = async () => {
    const renamed = await promptBranchTitle(dialogs, {
      title: m.branch_rename_title(),
      confirmLabel: m.branch_rename(),
      initialValue: branch.title,
      branchId: branch.id,
      branches: () => utils.projects.branches.list.fetch({ project: project.id }, { staleTime: 0 }),
      save: (title) => patchBranch.mutateAsync({ project: project.id, branch: branch.id, title }),
    });
    if (renamed) await invalidatePublishes(utils, project.id);
  };

  const remove = async () => {
    const confirmed = await dialogs.confirm({
      title: m.branch_delete_title(),
      message: m.branch_delete_text({ title: branch.title }),
      confirmLabel: m.branch_delete(),
      danger: true,
      defaultFocus: 'cancel',
    });
    if (!confirmed) return;
    const deleted = await dialogs.attempt(() => deleteBranch.mutateAsync({ project: project.id, branch: branch.id }));
    if (!deleted) return;
    navigate(projectHref(project.id));
    await invalidatePublishes(utils, project.id);
  };

  return (
    <div className="actions branch_actions" role="group" aria-label={m.branch_actions_label()}>
      {canPublish ? (
        <button type="button" className="button button_primary" onClick={() => void publishNew()}>
          {m.branch_publish_new()}
        </button>
      ) : null}
      {canPublish ? (
        <button type="button" className="button" onClick={() => void publishExisting()}>
          {m.branch_publish_existing()}
        </button>
      ) : null}
      {canRename ? (
        <button type="button" className="button" onClick={() => void rename()}>
          {m.branch_rename()}
        </button>
      ) : null}
      {canDelete ? (
        <button type="button" className="button button_quiet button_danger_text" onClick={() => void remove()}>
          {m.branch_delete()}
        </button>
      ) : null}
    </div>
  );
}
