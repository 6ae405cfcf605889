import type { ReactNode } from 'react';
import { dialog_cancel } from '../../shared/i18n/paraglide/messages/dialog_cancel.js';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { dialog_cancel };

/**
 * A form dialog's submit button: `disabled` while there is nothing to submit; `pending` while a submit
 * is on its way (aria-disabled: it keeps the focus); `busy` says so to assistive technology too.
 */
type DialogSubmit = { label: ReactNode; disabled?: boolean; pending?: boolean; busy?: boolean; autoFocus?: boolean };

/**
 * The end of every form dialog (spec §2 dialogs): why the last submit failed (an alert, `problemId` for
 * the fields' aria-describedby), then Cancel and the primary submit; without `submit`, Cancel alone,
 * which then takes the focus.
 */
export function DialogFooter(props: { problem?: ReactNode; problemId?: string; onCancel: () => void; cancelDisabled?: boolean; submit?: DialogSubmit }) {
  const { problem, problemId, onCancel, cancelDisabled, submit } = props;
  return (
    <>
      {problem ? (
        <p id={problemId} className="form_problem" role="alert">
          {problem}
        </p>
      ) : null}
      <div className="dialog_actions">
        <button type="button" className="button" onClick={onCancel} disabled={cancelDisabled} data-autofocus={submit ? undefined : true}>
          {m.dialog_cancel()}
        </button>
        {submit ? (
          <button
            type="submit"
            className="button button_primary"
            disabled={submit.disabled}
            aria-disabled={submit.pending ? true : undefined}
            aria-busy={submit.busy || undefined}
            data-autofocus={submit.autoFocus || undefined}
          >
            {submit.label}
          </button>
        ) : null}
      </div>
    </>
  );
}
