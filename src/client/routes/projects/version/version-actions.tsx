import { useLocation } from 'wouter';
import { version_actions_label } from '../../../../shared/i18n/paraglide/messages/version_actions_label.js';
import { version_delete } from '../../../../shared/i18n/paraglide/messages/version_delete.js';
import { version_delete_text } from '../../../../shared/i18n/paraglide/messages/version_delete_text.js';
import { version_delete_title } from '../../../../shared/i18n/paraglide/messages/version_delete_title.js';
import { version_delete_refused_title } from '../../../../shared/i18n/paraglide/messages/version_delete_refused_title.js';
import { version_edit } from '../../../../shared/i18n/paraglide/messages/version_edit.js';
import { version_edit_title } from '../../../../shared/i18n/paraglide/messages/version_edit_title.js';
import { version_repost } from '../../../../shared/i18n/paraglide/messages/version_repost.js';
import { version_save } from '../../../../shared/i18n/paraglide/messages/version_save.js';
import { version_deploy } from '../../../../shared/i18n/paraglide/messages/version_deploy.js';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { openDeployToSiteDialog } from '../../../dialogs/deploy-to-site-dialog.tsx';
import { VersionFormDialog } from '../../../dialogs/new-version-dialog.tsx';
import { SelectBranchDialog } from '../../../dialogs/select-branch-dialog.tsx';
import { toDisplayError } from '../../../lib/errors.ts';
import { trpc } from '../../../lib/trpc.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import type { Version } from '../../../../shared/schemas/versions.ts';
import { projectHref } from '../links.ts';
import { can } from '../project-frame.tsx';
import { invalidatePublishes } from '../branch/invalidate.ts';
import { InUseMessage } from './in-use-message.tsx';
import { useResumeDeploy } from './version-deploys.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { version_actions_label, version_delete, version_delete_refused_title, version_delete_text, version_delete_title, version_deploy, version_edit, version_edit_title, version_repost, version_save };

/**
 * Repost in a branch, deploy to site, edit, delete: each only when userPossibleActions allows it; none → no
 * toolbar. A deploy this tab started and did not close reopens its dialog after a reload.
 */
export function VersionActions({ project, version, onPublished }: { project: Project; version: Version; onPublished: () => void }) {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const [, navigate] = useLocation();
  const publish = trpc.projects.versions.publish.useMutation();
  const patch = trpc.projects.versions.patch.useMutation();
  const remove = trpc.projects.versions.delete.useMutation();
  const refreshDeploys = () => void utils.deploys.version.list.invalidate({ project: project.id, version: version.id });
  useResumeDeploy(project, version.id, refreshDeploys);
  const canPublish = can(project, 'publishVersion');
  const canDeploy = can(project, 'deployVersionToSite');
  const canEdit = can(project, 'patchVersion');
  const canDelete = can(project, 'deleteVersion');
  if (!canPublish && !canDeploy && !canEdit && !canDelete) return null;

  const deploy = () => openDeployToSiteDialog(dialogs, { project, versionId: version.id, onStarted: refreshDeploys });

  const repost = async () => {
    const done = await dialogs.open<boolean>((close) => (
      <SelectBranchDialog
        projectId={project.id}
        versionId={version.id}
        onSubmit={async (branchId) => {
          await publish.mutateAsync({ project: project.id, version: version.id, branch: branchId });
        }}
        onClose={close}
      />
    ));
    if (!done) return;
    await invalidatePublishes(utils, project.id);
    onPublished();
  };

  const edit = async () => {
    const done = await dialogs.open<boolean>((close) => (
      <VersionFormDialog
        title={m.version_edit_title()}
        confirmLabel={m.version_save()}
        initial={{ title: version.title, description: version.description }}
        projectId={project.id}
        onSubmit={async (values) => {
          const title = values.title === version.title ? undefined : values.title;
          const description = values.description === version.description ? undefined : values.description;
          if (title === undefined && description === undefined) return;
          await patch.mutateAsync({ project: project.id, version: version.id, title, description });
        }}
        onClose={close}
      />
    ));
    if (done) await invalidatePublishes(utils, project.id);
  };

  /** The branches this version is the current one of (the tRPC refusal carries no details): from the list of its publishes. */
  const currentOn = async () => {
    const publishes = await utils.projects.versions.branches.fetch({ project: project.id, version: version.id, count: 100 }, { staleTime: 0 });
    return publishes.filter((item) => item.isCurrent);
  };
  const sayInUse = (branches: Awaited<ReturnType<typeof currentOn>>) =>
    dialogs.ok({ title: m.version_delete_refused_title(), message: <InUseMessage versionTitle={version.title} branches={branches} /> });

  const startDelete = async () => {
    // Said up front: no destructive confirmation for a deletion the server would refuse.
    const current = await currentOn().catch(() => []);
    if (current.length > 0) {
      await sayInUse(current);
      return;
    }
    const confirmed = await dialogs.confirm({
      title: m.version_delete_title(),
      message: m.version_delete_text({ title: version.title }),
      confirmLabel: m.version_delete(),
      danger: true,
      defaultFocus: 'cancel',
    });
    if (!confirmed) return;
    for (;;) {
      try {
        await remove.mutateAsync({ project: project.id, version: version.id });
        break;
      } catch (error) {
        // Published meanwhile (or the list could not be read before): the same words after the refusal.
        if (toDisplayError(error).code === 'not_empty') {
          await sayInUse(await currentOn().catch(() => []));
          return;
        }
        if ((await dialogs.error(error, { retry: true })) === 'ok') return;
      }
    }
    navigate(projectHref(project.id));
    await invalidatePublishes(utils, project.id);
  };

  return (
    <div className="actions version_actions" role="group" aria-label={m.version_actions_label()}>
      {canPublish ? (
        <button type="button" className="button button_primary" onClick={() => void repost()}>
          {m.version_repost()}
        </button>
      ) : null}
      {canDeploy ? (
        <button type="button" className="button" onClick={() => void deploy()}>
          {m.version_deploy()}
        </button>
      ) : null}
      {canEdit ? (
        <button type="button" className="button" onClick={() => void edit()}>
          {m.version_edit()}
        </button>
      ) : null}
      {canDelete ? (
        <button type="button" className="button button_quiet button_danger_text" onClick={() => void startDelete()}>
          {m.version_delete()}
        </button>
      ) : null}
    </div>
  );
}
