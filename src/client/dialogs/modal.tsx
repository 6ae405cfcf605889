import { useId, useLayoutEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';

const focusableSelector = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * showModal() keeps focus off the page but lets Tab leave for the browser's own UI after the last
 * control; wrapping here keeps keyboard users inside the dialog.
 */
function wrapTabFocus(event: KeyboardEvent<HTMLDialogElement>): void {
  if (event.key !== 'Tab') return;
  const focusable = [...event.currentTarget.querySelectorAll<HTMLElement>(focusableSelector)].filter((element) => element.offsetParent !== null || element === document.activeElement);
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (!first || !last) {
    event.preventDefault();
    return;
  }
  const active = document.activeElement;
  if (event.shiftKey && (active === first || !event.currentTarget.contains(active))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !event.currentTarget.contains(active))) {
    event.preventDefault();
    first.focus();
  }
}

export type ModalProps = {
  title: ReactNode;
  /** Escape (the dialog's cancel event) and the close button call this. */
  onCancel: () => void;
  children: ReactNode;
  /** Extra class on the dialog, e.g. 'dialog_danger'. */
  className?: string;
  /** Element id of the text describing the dialog. */
  describedBy?: string;
  /** Shown in the header as role alertdialog (errors, dangerous confirmations). */
  alert?: boolean;
};

/**
 * A native <dialog> opened with showModal(): the browser makes the rest of the page inert and turns
 * Escape into a cancel event; Tab wraps between the first and last control. The element marked data-autofocus gets focus;
 * focus goes back to where it was when the dialog closes.
 */
export function Modal({ title, onCancel, children, className, describedBy, alert }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const onCancelRef = useRef(onCancel);
  onCancelRef.current = onCancel;

  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) {
      if (typeof dialog.showModal === 'function') dialog.showModal();
      else dialog.setAttribute('open', '');
    }
    const initial = dialog.querySelector<HTMLElement>('[data-autofocus]') ?? dialog.querySelector<HTMLElement>('button, input, textarea, select');
    initial?.focus();
    let closedByUs = false;
    // The close event is dispatched after close(): in development, StrictMode runs this effect twice
    // (show, clean up with close(), show again), and the first close's event then reaches the second
    // listener while the dialog is open again. Only a dialog that is really closed is cancelled.
    const onClose = () => {
      if (!closedByUs && !dialog.open) onCancelRef.current();
    };
    dialog.addEventListener('close', onClose);
    return () => {
      closedByUs = true;
      dialog.removeEventListener('close', onClose);
      if (dialog.open) dialog.close();
      if (previous?.isConnected) previous.focus();
    };
  }, []);

  return (
    <dialog
      ref={ref}
      className={`dialog ${className ?? ''}`.trim()}
      role={alert ? 'alertdialog' : undefined}
      aria-modal="true"
      aria-labelledby={titleId}
      aria-describedby={describedBy}
      onKeyDown={wrapTabFocus}
      onCancel={(event) => {
        event.preventDefault();
        onCancelRef.current();
      }}
    >
      <h2 id={titleId} className="dialog_title">
        {title}
      </h2>
      {children}
    </dialog>
  );
}
