import { useState, type FormEvent } from 'react';
import type { ArchiveDirectory } from '../../../shared/archive/index.ts';
import { file_tree_move } from '../../../shared/i18n/paraglide/messages/file_tree_move.js';
import { file_tree_move_into } from '../../../shared/i18n/paraglide/messages/file_tree_move_into.js';
import { file_tree_move_label } from '../../../shared/i18n/paraglide/messages/file_tree_move_label.js';
import { file_tree_top_level } from '../../../shared/i18n/paraglide/messages/file_tree_top_level.js';
import { FormField } from '../../components/form-field.tsx';
import { Modal } from '../modal.tsx';
import { DialogFooter } from '../dialog-footer.tsx';
import { moveTargets } from './tree-rows.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { file_tree_move, file_tree_move_into, file_tree_move_label, file_tree_top_level };

/** The keyboard way to do what dragging a row onto a folder does: pick the folder from a list. */
export function MoveDialog(props: { root: ArchiveDirectory; moving: string[]; onClose: (destination: string[] | null) => void }) {
  const targets = moveTargets(props.root, props.moving);
  const [choice, setChoice] = useState(0);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const destination = targets[choice];
    props.onClose(destination ?? null);
  };
  return (
    <Modal title={m.file_tree_move_label({ name: props.moving[props.moving.length - 1] ?? '' })} onCancel={() => props.onClose(null)}>
      <form className="dialog_form" onSubmit={submit}>
        <FormField label={m.file_tree_move_into()}>
          {(control) => (
            <select {...control} className="select" data-autofocus value={choice} onChange={(event) => setChoice(Number(event.currentTarget.value))}>
              {targets.map((parts, i) => (
                <option key={parts.join('/')} value={i} dir={parts.length === 0 ? undefined : 'ltr'}>
                  {parts.length === 0 ? m.file_tree_top_level() : parts.join('/')}
                </option>
              ))}
            </select>
          )}
        </FormField>
        <DialogFooter onCancel={() => props.onClose(null)} submit={{ label: m.file_tree_move(), disabled: targets.length === 0 }} />
      </form>
    </Modal>
  );
}
