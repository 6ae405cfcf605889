import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { dialog_error_message } from '../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { install_dialog_busy } from '../../shared/i18n/paraglide/messages/install_dialog_busy.js';
import { install_dialog_existing_hint } from '../../shared/i18n/paraglide/messages/install_dialog_existing_hint.js';
import { package_page_install } from '../../shared/i18n/paraglide/messages/package_page_install.js';
import { install_dialog_name } from '../../shared/i18n/paraglide/messages/install_dialog_name.js';
import { install_dialog_name_invalid } from '../../shared/i18n/paraglide/messages/install_dialog_name_invalid.js';
import { install_dialog_name_taken } from '../../shared/i18n/paraglide/messages/install_dialog_name_taken.js';
import { install_dialog_new } from '../../shared/i18n/paraglide/messages/install_dialog_new.js';
import { install_dialog_no_workspaces } from '../../shared/i18n/paraglide/messages/install_dialog_no_workspaces.js';
import { install_dialog_title } from '../../shared/i18n/paraglide/messages/install_dialog_title.js';
import { install_dialog_where } from '../../shared/i18n/paraglide/messages/install_dialog_where.js';
import { install_dialog_workspace } from '../../shared/i18n/paraglide/messages/install_dialog_workspace.js';
import { install_dialog_workspace_choose } from '../../shared/i18n/paraglide/messages/install_dialog_workspace_choose.js';
import { FormField } from '../components/form-field.tsx';
import { ErrorState, LoadingState } from '../components/states.tsx';
import { rich, slot } from '../lib/i18n/rich.tsx';
import {
  defaultFolderName,
  folderNameOf,
  rememberedWorkspace,
  rememberWorkspace,
  safeFolderName,
  transitionTo,
  type InstallablePackage,
} from '../lib/local-app/install.ts';
import { helperErrorText } from '../lib/local-app/helper.ts';
import { useLocalApp } from '../lib/local-app/use-local-app.ts';
import type { Workdir } from '../../shared/schemas/local-helper.ts';
import { Modal } from './modal.tsx';
import { DialogFooter } from './dialog-footer.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  dialog_error_message,
  install_dialog_busy,
  install_dialog_existing_hint,
  install_dialog_name,
  install_dialog_name_invalid,
  install_dialog_name_taken,
  install_dialog_new,
  install_dialog_no_workspaces,
  install_dialog_title,
  install_dialog_where,
  install_dialog_workspace,
  install_dialog_workspace_choose,
  package_page_install,
};

const NEW = 'new';

/** The workdirs in the dialog's order: those of the same project first, then the others, by path. */
function orderWorkdirs(workdirs: readonly Workdir[], projectId: string): Workdir[] {
  return [...workdirs].sort((a, b) => Number(b.project_id === projectId) - Number(a.project_id === projectId) || a.local_path.localeCompare(b.local_path));
}

/**
 * Spec §2 'install package' dialog, §5: into an existing workdir (those of the same project listed first)
 * or a new folder (a workspace and a folder name, by default the project and package titles made into a
 * safe file name). OK stays disabled until an existing workdir, or a workspace for a new one, is chosen;
 * the workspace is remembered under last_install_workspace_id. OK adds the workdir if new and starts the
 * transition; the dialog closes with the workdir's id (the page shows the progress), or null.
 */
export function InstallPackageDialog({ pkg, onClose }: { pkg: InstallablePackage; onClose: (workdirId: string | null) => void }) {
  const local = useLocalApp();
  const queryClient = useQueryClient();
  const ids = { where: useId(), hint: useId(), problem: useId() };
  const workspaces = local.workspaces.data;
  const workdirs = local.workdirs.data;
  const remembered = rememberedWorkspace();
  const [choice, setChoice] = useState<string>(NEW);
  const [workspace, setWorkspace] = useState<string | undefined>(undefined);
  const [name, setName] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  // The remembered workspace counts as chosen once the list confirms it still exists.
  const chosenWorkspace = workspace ?? (workspaces?.some((item) => item.id === remembered) ? (remembered ?? undefined) : undefined);
  const takenNames = (workdirs ?? []).filter((item) => item.workspace_id === chosenWorkspace).map(folderNameOf);
  const folderName = name ?? defaultFolderName(pkg.projectTitle, pkg.packageTitle, takenNames);
  const nameProblem =
    choice !== NEW || name === undefined
      ? undefined
      : safeFolderName(folderName) !== folderName
        ? m.install_dialog_name_invalid()
        : takenNames.some((taken) => taken.toLowerCase() === folderName.toLowerCase())
          ? m.install_dialog_name_taken()
          : undefined;
  const ordered = orderWorkdirs(workdirs ?? [], pkg.projectId);
  const ready = choice === NEW ? chosenWorkspace !== undefined && folderName !== '' && nameProblem === undefined : ordered.some((item) => item.id === choice);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy || !ready) return;
    setBusy(true);
    setProblem(undefined);
    try {
      const target = choice === NEW ? { workspace: chosenWorkspace!, name: folderName } : { workdir: choice };
      if (choice === NEW) rememberWorkspace(chosenWorkspace!);
      const id = await transitionTo(queryClient, pkg, target);
      onClose(id);
    } catch (error) {
      setProblem(m.dialog_error_message({ text: helperErrorText(error) }));
      setBusy(false);
    }
  };

  const loading = !workspaces || !workdirs;
  const loadError = local.workspaces.error ?? local.workdirs.error;
  return (
    <Modal title={rich(m.install_dialog_title({ title: slot('title') }), { title: <bdi>{pkg.packageTitle}</bdi> })} onCancel={() => onClose(null)} className="install_dialog">
      <form className="dialog_form" onSubmit={submit} noValidate>
        {loadError ? (
          <ErrorState
            error={loadError}
            onRetry={() => {
              local.workspaces.refetch();
              local.workdirs.refetch();
            }}
          />
        ) : loading ? (
          <LoadingState />
        ) : (
          <fieldset className="field install_where" aria-describedby={ordered.length > 0 ? ids.hint : undefined}>
            <legend id={ids.where}>{m.install_dialog_where()}</legend>
            {ordered.length > 0 ? (
              <p id={ids.hint} className="field_hint">
                {m.install_dialog_existing_hint()}
              </p>
            ) : null}
            <div className="install_choices">
              <label className="choice">
                <input type="radio" name="install-where" value={NEW} checked={choice === NEW} onChange={() => setChoice(NEW)} data-autofocus />
                <span className="pick_one_label">{m.install_dialog_new()}</span>
              </label>
              {choice === NEW ? (
                <div className="install_new">
                  {workspaces.length === 0 ? (
                    <p className="notice">{m.install_dialog_no_workspaces({ command: 'cartridge-helper workspace add …' })}</p>
                  ) : (
                    <FormField label={m.install_dialog_workspace()}>
                      {(control) => (
                        <select {...control} className="select" value={chosenWorkspace ?? ''} onChange={(event) => setWorkspace(event.currentTarget.value || undefined)}>
                          {chosenWorkspace === undefined ? <option value="">{m.install_dialog_workspace_choose()}</option> : null}
                          {workspaces.map((item) => (
                            <option key={item.id} value={item.id} dir="ltr">
                              {item.local_path}
                            </option>
                          ))}
                        </select>
                      )}
                    </FormField>
                  )}
                  <FormField label={m.install_dialog_name()} error={nameProblem}>
                    {(control) => <input {...control} className="input" value={folderName} maxLength={255} onChange={(event) => setName(event.currentTarget.value)} dir="auto" />}
                  </FormField>
                </div>
              ) : null}
              {ordered.map((workdir) => {
                const running = local.progressOf(workdir.id) !== undefined;
                return (
                  <label key={workdir.id} className={running ? 'choice pick_one_disabled' : 'choice'} data-workdir-id={workdir.id}>
                    <input type="radio" name="install-where" value={workdir.id} checked={choice === workdir.id} disabled={running} onChange={() => setChoice(workdir.id)} />
                    <span>
                      <span className="pick_one_label">
                        <bdi>{workdir.project_title ?? folderNameOf(workdir)}</bdi>
                        {workdir.package_title ? (
                          <>
                            {' · '}
                            <bdi>{workdir.package_title}</bdi>
                          </>
                        ) : null}
                      </span>{' '}
                      <bdi className="pick_one_detail install_path" dir="ltr">
                        {workdir.local_path}
                      </bdi>
                      {running ? <span className="pick_one_detail"> {m.install_dialog_busy()}</span> : null}
                    </span>
                  </label>
                );
              })}
            </div>
          </fieldset>
        )}
        <DialogFooter problem={problem} problemId={ids.problem} onCancel={() => onClose(null)} submit={{ label: m.package_page_install(), disabled: !ready || busy, busy }} />
      </form>
    </Modal>
  );
}
