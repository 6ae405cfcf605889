import type { ReactNode } from 'react';
import { dialog_error_message } from '../paraglide/messages/dialog_error_message.js';
import { state_empty } from '../paraglide/messages/state_empty.js';
import { state_error } from '../paraglide/messages/state_error.js';
import { state_loading } from '../paraglide/messages/state_loading.js';
import { state_retry } from '../paraglide/messages/state_retry.js';
import { errorText, toDisplayError } from '../lib/errors.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { dialog_error_message, state_empty, state_error, state_loading, state_retry };

/** Generic states of spec §2: loading, empty, error. */
export function LoadingState({ label }: { label?: string }) {
  return (
    <div className="state state_loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>{label ?? m.state_loading()}</span>
    </div>
  );
}

export function EmptyState({ children }: { children?: ReactNode }) {
  return <p className="state state_empty">{children ?? m.state_empty()}</p>;
}

/** 'Error' with the catalogued text, and Retry when the load can be re-run. */
export function ErrorState({ error, onRetry, title }: { error: unknown; onRetry?: () => void; title?: string }) {
  const shown = toDisplayError(error);
  return (
    <div className="state state_error" role="alert">
      <p className="state_error_title">{title ?? m.state_error()}</p>
      <p data-error-code={shown.code}>{m.dialog_error_message({ text: errorText(shown) })}</p>
      {onRetry ? (
        <button type="button" className="button" onClick={onRetry}>
          {m.state_retry()}
        </button>
      ) : null}
    </div>
  );
}
