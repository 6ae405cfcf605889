import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { dialog_cancel } from '../../shared/i18n/paraglide/messages/dialog_cancel.js';
import { dialog_copied } from '../../shared/i18n/paraglide/messages/dialog_copied.js';
import { dialog_copy } from '../../shared/i18n/paraglide/messages/dialog_copy.js';
import { dialog_copy_failed } from '../../shared/i18n/paraglide/messages/dialog_copy_failed.js';
import { dialog_error_message } from '../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { dialog_error_title } from '../../shared/i18n/paraglide/messages/dialog_error_title.js';
import { dialog_ok } from '../../shared/i18n/paraglide/messages/dialog_ok.js';
import { dialog_required } from '../../shared/i18n/paraglide/messages/dialog_required.js';
import { dialog_retry } from '../../shared/i18n/paraglide/messages/dialog_retry.js';
import { FormField } from '../components/form-field.tsx';
import { errorText, type DisplayError } from '../lib/errors.ts';
import { Modal } from './modal.tsx';
import { DialogFooter } from './dialog-footer.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { dialog_cancel, dialog_copied, dialog_copy, dialog_copy_failed, dialog_error_message, dialog_error_title, dialog_ok, dialog_required, dialog_retry };

/** The one button of a dialog that only tells: OK, focused. */
function OkActions({ onClose }: { onClose: () => void }) {
  return (
    <div className="dialog_actions">
      <button type="button" className="button button_primary" data-autofocus onClick={onClose}>
        {m.dialog_ok()}
      </button>
    </div>
  );
}

export function OkDialog({ title, message, onClose }: { title: string; message: ReactNode; onClose: () => void }) {
  const messageId = useId();
  return (
    <Modal title={title} onCancel={onClose} describedBy={messageId}>
      <div id={messageId} className="dialog_body">
        {message}
      </div>
      <OkActions onClose={onClose} />
    </Modal>
  );
}

export function CopyTextDialog({ title, message, text, label, onClose }: { title: string; message: ReactNode; text: string; label?: string; onClose: () => void }) {
  const messageId = useId();
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [copyState, setCopyState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    inputRef.current?.select();
    try {
      await navigator.clipboard.writeText(text);
      setCopyState('copied');
    } catch {
      setCopyState('failed');
    }
  };
  return (
    <Modal title={title} onCancel={onClose} describedBy={messageId}>
      <div id={messageId} className="dialog_body">
        {message}
      </div>
      <div className="copy_field">
        <label htmlFor={inputId} className={label ? undefined : 'visually_hidden'}>
          {label ?? title}
        </label>
        <input id={inputId} ref={inputRef} className="input copy_field_input" readOnly value={text} onFocus={(event) => event.currentTarget.select()} />
        <button type="button" className="button" onClick={copy}>
          {copyState === 'copied' ? m.dialog_copied() : m.dialog_copy()}
        </button>
        {/* Takes no room until there is something to say (an empty reserved line left a gap above OK). */}
        <span className="copy_field_status" role="status">
          {copyState === 'failed' ? m.dialog_copy_failed() : copyState === 'copied' ? m.dialog_copied() : ''}
        </span>
      </div>
      <OkActions onClose={onClose} />
    </Modal>
  );
}

export type ConfirmOptions = {
  title: string;
  message: ReactNode;
  /** Label of the confirming button; 'OK' by default. */
  confirmLabel?: string;
  /** Red styling of the confirming button for destructive actions. */
  danger?: boolean;
  /** Which button has focus when the dialog opens; 'ok' by default, 'cancel' is safer for danger. */
  defaultFocus?: 'ok' | 'cancel';
};

export type PromptOptions = {
  title: string;
  label: string;
  initialValue?: string;
  /** Return a message to refuse the value; the empty value is refused unless allowEmpty. */
  validate?: (value: string) => string | undefined;
  allowEmpty?: boolean;
  maxLength?: number;
  /** A problem shown as the prompt opens (the server refused what it is asked again with). */
  initialProblem?: string;
  confirmLabel?: string;
};

export function ConfirmDialog(props: ConfirmOptions & { onClose: (confirmed: boolean) => void }) {
  const messageId = useId();
  const focusCancel = props.defaultFocus === 'cancel';
  return (
    <Modal title={props.title} onCancel={() => props.onClose(false)} describedBy={messageId} className={props.danger ? 'dialog_danger' : undefined} alert={props.danger}>
      <div id={messageId} className="dialog_body">
        {props.message}
      </div>
      <div className="dialog_actions">
        <button type="button" className="button" data-autofocus={focusCancel ? true : undefined} onClick={() => props.onClose(false)}>
          {m.dialog_cancel()}
        </button>
        <button
          type="button"
          className={props.danger ? 'button button_danger' : 'button button_primary'}
          data-autofocus={focusCancel ? undefined : true}
          onClick={() => props.onClose(true)}
        >
          {props.confirmLabel ?? m.dialog_ok()}
        </button>
      </div>
    </Modal>
  );
}

export function PromptDialog(props: PromptOptions & { onClose: (value: string | null) => void }) {
  const [value, setValue] = useState(props.initialValue ?? '');
  const [problem, setProblem] = useState<string | undefined>(props.initialProblem);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const refusal = !props.allowEmpty && value.trim() === '' ? m.dialog_required() : props.validate?.(value);
    if (refusal) {
      setProblem(refusal);
      return;
    }
    props.onClose(value);
  };
  return (
    <Modal title={props.title} onCancel={() => props.onClose(null)}>
      <form className="dialog_form" onSubmit={submit} noValidate>
        <FormField label={props.label} error={problem} limit={props.maxLength === undefined ? undefined : { length: value.length, max: props.maxLength }}>
          {(control) => (
            <input
              {...control}
              className="input"
              data-autofocus
              value={value}
              maxLength={props.maxLength}
              onChange={(event) => {
                setValue(event.target.value);
                setProblem(undefined);
              }}
            />
          )}
        </FormField>
        <DialogFooter onCancel={() => props.onClose(null)} submit={{ label: props.confirmLabel ?? m.dialog_ok() }} />
      </form>
    </Modal>
  );
}

/** Spec §8: header 'Error', message 'Error: {text}.', an unknown code shown raw; Retry re-runs, OK abandons. */
export function ErrorDialog({ error, canRetry, onClose }: { error: DisplayError; canRetry: boolean; onClose: (choice: 'retry' | 'ok') => void }) {
  const messageId = useId();
  return (
    <Modal title={m.dialog_error_title()} onCancel={() => onClose('ok')} describedBy={messageId} className="dialog_error" alert>
      <p id={messageId} className="dialog_body" data-error-code={error.code}>
        {m.dialog_error_message({ text: errorText(error) })}
      </p>
      <div className="dialog_actions">
        {canRetry ? (
          <button type="button" className="button" onClick={() => onClose('retry')}>
            {m.dialog_retry()}
          </button>
        ) : null}
        <button type="button" className="button button_primary" data-autofocus onClick={() => onClose('ok')}>
          {m.dialog_ok()}
        </button>
      </div>
    </Modal>
  );
}
