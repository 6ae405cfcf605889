import { useState, type FormEvent } from 'react';
import { dialog_error_message } from '../../../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { dialog_required } from '../../../../shared/i18n/paraglide/messages/dialog_required.js';
import { project_new_create } from '../../../../shared/i18n/paraglide/messages/project_new_create.js';
import { project_new_label } from '../../../../shared/i18n/paraglide/messages/project_new_label.js';
import { project_new_title } from '../../../../shared/i18n/paraglide/messages/project_new_title.js';
import { project_new_too_long } from '../../../../shared/i18n/paraglide/messages/project_new_too_long.js';
import { FormField } from '../../../components/form-field.tsx';
import { Modal } from '../../../dialogs/modal.tsx';
import { DialogFooter } from '../../../dialogs/dialog-footer.tsx';
import { errorText, toDisplayError } from '../../../lib/errors.ts';
import { trpc } from '../../../lib/trpc.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { dialog_error_message, dialog_required, project_new_create, project_new_label, project_new_title, project_new_too_long };

/** projectTitleSchema's limit. */
const titleMaxLength = 100;

/** The refusal for a title, or undefined when the server will accept it. */
function titleProblem(title: string): string | undefined {
  const trimmed = title.trim();
  if (trimmed === '') return m.dialog_required();
  if (trimmed.length > titleMaxLength) return m.project_new_too_long({ max: String(titleMaxLength) });
  return undefined;
}

/** Spec §2 'new project' dialog: a title; closes with the created project, or null when cancelled. */
export function NewProjectDialog({ onClose }: { onClose: (project: Project | null) => void }) {
  const utils = trpc.useUtils();
  const create = trpc.projects.create.useMutation();
  const [title, setTitle] = useState('');
  const [problem, setProblem] = useState<string | undefined>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (create.isPending) return;
    const refusal = titleProblem(title);
    if (refusal) {
      setProblem(refusal);
      return;
    }
    try {
      const project = await create.mutateAsync({ title: title.trim() });
      utils.projects.get.setData({ project: project.id }, project);
      await utils.projects.mine.invalidate();
      onClose(project);
    } catch (error) {
      setProblem(m.dialog_error_message({ text: errorText(toDisplayError(error)) }));
    }
  };

  return (
    <Modal title={m.project_new_title()} onCancel={() => onClose(null)}>
      <form className="dialog_form" onSubmit={(event) => void submit(event)} noValidate aria-busy={create.isPending || undefined}>
        <FormField label={m.project_new_label()} error={problem} limit={{ length: title.length, max: titleMaxLength }}>
          {(control) => (
            <input
              {...control}
              className="input"
              data-autofocus
              value={title}
              required
              maxLength={titleMaxLength}
              onChange={(event) => {
                setTitle(event.target.value);
                setProblem(undefined);
              }}
            />
          )}
        </FormField>
        <DialogFooter onCancel={() => onClose(null)} cancelDisabled={create.isPending} submit={{ label: m.project_new_create(), disabled: create.isPending }} />
      </form>
    </Modal>
  );
}
