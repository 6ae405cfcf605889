import { useState, type FormEvent } from 'react';
import { dialog_error_message } from '../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { edit_tags_save } from '../../shared/i18n/paraglide/messages/edit_tags_save.js';
import { edit_tags_title } from '../../shared/i18n/paraglide/messages/edit_tags_title.js';
import { TagPicker } from '../components/tag-picker.tsx';
import { errorText, toDisplayError } from '../lib/errors.ts';
import { Modal } from './modal.tsx';
import { DialogFooter } from './dialog-footer.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { dialog_error_message, edit_tags_save, edit_tags_title };

/**
 * Spec §2 'edit package tags': the tag picker and Save. onSubmit saves (a failure stays in the dialog
 * with its message, so nothing picked is lost); the dialog closes with true once saved.
 */
export function EditTagsDialog({ initial, onSubmit, onClose }: { initial: string[]; onSubmit: (tags: string[]) => Promise<void>; onClose: (saved: boolean) => void }) {
  const [tags, setTags] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      await onSubmit(tags);
      onClose(true);
    } catch (failure) {
      setProblem(m.dialog_error_message({ text: errorText(toDisplayError(failure)) }));
      setBusy(false);
    }
  };
  return (
    <Modal title={m.edit_tags_title()} onCancel={() => onClose(false)} className="edit_tags_dialog">
      <form className="dialog_form" onSubmit={(event) => void submit(event)} noValidate>
        <TagPicker value={tags} onChange={setTags} disabled={busy} />
        <DialogFooter problem={problem} onCancel={() => onClose(false)} submit={{ label: m.edit_tags_save(), disabled: busy, autoFocus: true }} />
      </form>
    </Modal>
  );
}
