import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { dialog_error_message } from '../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { dialog_required } from '../../shared/i18n/paraglide/messages/dialog_required.js';
import { version_description_label } from '../../shared/i18n/paraglide/messages/version_description_label.js';
import { version_packages_label } from '../../shared/i18n/paraglide/messages/version_packages_label.js';
import { version_packages_later } from '../../shared/i18n/paraglide/messages/version_packages_later.js';
import { version_title_label } from '../../shared/i18n/paraglide/messages/version_title_label.js';
import { version_title_invalid } from '../../shared/i18n/paraglide/messages/version_title_invalid.js';
import { version_title_taken } from '../../shared/i18n/paraglide/messages/version_title_taken.js';
import { project_overview_too_long } from '../../shared/i18n/paraglide/messages/project_overview_too_long.js';
import { upload_waiting } from '../../shared/i18n/paraglide/messages/upload_waiting.js';
import { markdown_editor_images_hint } from '../../shared/i18n/paraglide/messages/markdown_editor_images_hint.js';
import { markdown_editor_images_pending } from '../../shared/i18n/paraglide/messages/markdown_editor_images_pending.js';
import { FormField } from '../components/form-field.tsx';
import { errorText, toDisplayError } from '../lib/errors.ts';
import { versionTitleProblem, type VersionTitleProblem } from '../../shared/schemas/versions.ts';
import { Modal } from './modal.tsx';
import { DialogFooter } from './dialog-footer.tsx';
import { PastedImageList, useImageTextarea } from './pasted-images.tsx';

/** versionTitleSchema's limit (src/shared/schemas/versions.ts). */
const versionTitleMaxLength = 64;

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  dialog_error_message,
  dialog_required,
  markdown_editor_images_hint,
  markdown_editor_images_pending,
  version_description_label,
  version_packages_label,
  version_packages_later,
  project_overview_too_long,
  version_title_invalid,
  version_title_label,
  version_title_taken,
  upload_waiting,
};

export type VersionFormValues = { title: string; description: string; packages: string[] };

/**
 * The package picker (src/client/dialogs/new-version/version-upload-list.tsx): reports the chosen package ids and
 * whether an upload is still running; without one the dialog says packages come later.
 */
export type PackagesPicker = (props: {
  value: string[];
  onChange: (packages: string[], pending: boolean) => void;
  /**
   * Called before a new package's upload starts: false when the version could not be created as it
   * stands (its title refused), shown at the title. Checked first, no upload is left without a version.
   */
  beforeUpload: () => boolean;
}) => ReactNode;

export type VersionFormDialogProps = {
  title: string;
  confirmLabel: string;
  initial: { title: string; description: string };
  /** The version's project: images pasted or dropped into the description are uploaded to it (spec §4, §5). */
  projectId?: string;
  /** The titles of the project's versions (unique per project): refused at the title before anything is sent. */
  takenTitles?: readonly string[];
  /** Shows the packages part (new versions); editing a version leaves it out. */
  withPackages?: boolean;
  packages?: PackagesPicker;
  /** Runs the change; a thrown error is shown in the dialog (name_conflict at the title) and it stays open. */
  onSubmit: (values: VersionFormValues) => Promise<void>;
  /** true once onSubmit succeeded, false when cancelled. */
  onClose: (done: boolean) => void;
};

function titleProblemText(problem: VersionTitleProblem): string {
  switch (problem) {
    case 'required':
      return m.dialog_required();
    case 'too_long':
      return m.project_overview_too_long({ max: String(versionTitleMaxLength) });
    case 'invalid':
      return m.version_title_invalid();
    case 'taken':
      return m.version_title_taken();
  }
}

/** Title and description of a version (new or edited), with the server's refusals shown in place. */
export function VersionFormDialog(props: VersionFormDialogProps) {
  const ids = { packages: useId() };
  const titleInput = useRef<HTMLInputElement>(null);
  const [title, setTitle] = useState(props.initial.title);
  const [description, setDescription] = useState(props.initial.description);
  const [packages, setPackages] = useState<string[]>([]);
  const [pending, setPending] = useState(false);
  const [pendingShown, setPendingShown] = useState(false);
  const [titleProblem, setTitleProblem] = useState<string | undefined>();
  const [failure, setFailure] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  // A version's notes have no images list: the pasted images' addresses in the text are what keeps them.
  const pasted = useImageTextarea({ projectId: props.projectId, initial: [], text: description, setText: setDescription });

  // The server's rule and the titles known, before an upload or the version: a refusal after the
  // uploads would leave their packages in no version.
  const checkTitle = (): boolean => {
    const problem = versionTitleProblem(title, props.takenTitles ?? []);
    if (!problem) return true;
    setTitleProblem(titleProblemText(problem));
    titleInput.current?.focus();
    return false;
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    // Spec §4: a new version needs every package existing or uploaded first.
    if (pending) {
      setPendingShown(true);
      return;
    }
    if (!checkTitle()) return;
    if (pasted.busy) {
      setFailure(m.markdown_editor_images_pending());
      return;
    }
    setBusy(true);
    setFailure(undefined);
    try {
      await props.onSubmit({ title: title.trim(), description, packages });
      props.onClose(true);
    } catch (error) {
      const shown = toDisplayError(error);
      if (shown.code === 'name_conflict') setTitleProblem(m.version_title_taken());
      else setFailure(m.dialog_error_message({ text: errorText(shown) }));
    } finally {
      setBusy(false);
    }
  };

  const Picker = props.packages;
  return (
    <Modal title={props.title} onCancel={() => props.onClose(false)} className="version_form_dialog">
      <form className="dialog_form" onSubmit={submit} noValidate>
        <FormField label={m.version_title_label()} error={titleProblem} limit={{ length: title.length, max: versionTitleMaxLength }}>
          {(control) => (
            <input
              {...control}
              ref={titleInput}
              className="input"
              data-autofocus
              maxLength={versionTitleMaxLength}
              value={title}
              onChange={(event) => {
                setTitle(event.target.value);
                // A title another version has is said at once; the rest when it matters (upload, submit).
                setTitleProblem(versionTitleProblem(event.target.value, props.takenTitles ?? []) === 'taken' ? m.version_title_taken() : undefined);
              }}
            />
          )}
        </FormField>
        <FormField label={m.version_description_label()} hint={props.projectId ? m.markdown_editor_images_hint() : undefined}>
          {(control) => (
            <>
              <textarea
                {...control}
                {...pasted.textarea}
                className="input version_form_description"
                rows={6}
                maxLength={100_000}
                value={description}
                onChange={(event) => {
                  pasted.track(event);
                  setDescription(event.target.value);
                }}
              />
              {props.projectId ? <PastedImageList pending={pasted.pending} dismiss={pasted.dismiss} /> : null}
            </>
          )}
        </FormField>
        {props.withPackages ? (
          <div className="field" role="group" aria-labelledby={ids.packages}>
            <span id={ids.packages} className="version_form_label">
              {m.version_packages_label()}
            </span>
            {Picker ? (
              <Picker
                value={packages}
                beforeUpload={checkTitle}
                onChange={(next, stillPending) => {
                  setPackages(next);
                  setPending(stillPending);
                  if (!stillPending) setPendingShown(false);
                }}
              />
            ) :  <p className="field_hint">{m.version_packages_later()}</p>}
          </div>
        ) : null}
        {pending ? (
          <p className={pendingShown ? 'form_problem' : 'field_hint'} role={pendingShown ? 'alert' : undefined}>
            {m.upload_waiting()}
          </p>
        ) : null}
        <DialogFooter problem={failure} onCancel={() => props.onClose(false)} submit={{ label: props.confirmLabel, pending: busy || pending }} />
      </form>
    </Modal>
  );
}
