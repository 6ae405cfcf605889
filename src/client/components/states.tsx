import type { ReactNode } from 'react';
import { dialog_error_message } from '../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { state_empty } from '../../shared/i18n/paraglide/messages/state_empty.js';
import { state_error } from '../../shared/i18n/paraglide/messages/state_error.js';
import { state_loading } from '../../shared/i18n/paraglide/messages/state_loading.js';
import { state_retry } from '../../shared/i18n/paraglide/messages/state_retry.js';
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

/** Line drawings (24 px grid, stroked) of what an empty list would hold. */
const emptyIcons = {
  generic: 'M3 8l9-5 9 5v8l-9 5-9-5zM3 8l9 5 9-5M12 13v8',
  packages: 'M6 3h10.5L19 5.5V20a1 1 0 0 1-1 1H6a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1zM8 11h8v7H8zM8 6h6',
  files: 'M3 6.5A1.5 1.5 0 0 1 4.5 5H9l2 2h8.5A1.5 1.5 0 0 1 21 8.5v9a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 17.5z',
  branches: 'M8 6a2 2 0 1 1-4 0 2 2 0 0 1 4 0zM8 18a2 2 0 1 1-4 0 2 2 0 0 1 4 0zM20 6a2 2 0 1 1-4 0 2 2 0 0 1 4 0zM6 8v8M18 8v1a5 5 0 0 1-5 5H8',
  history: 'M12 7v5l3 2M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0z',
  keys: 'M12 15a4 4 0 1 1-8 0 4 4 0 0 1 8 0zM10.8 12.2L19 4M15.5 7.5l2.5 2.5M17.5 5.5l2 2',
  links: 'M10 14a4 4 0 0 0 5.66 0l3-3a4 4 0 0 0-5.66-5.66l-1 1M14 10a4 4 0 0 0-5.66 0l-3 3a4 4 0 0 0 5.66 5.66l1-1',
  servers: 'M4 4h16v6H4zM4 14h16v6H4zM8 7h.01M8 17h.01',
  sites: 'M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0zM3 12h18M12 3c2.5 2.5 3.5 5.5 3.5 9s-1 6.5-3.5 9c-2.5-2.5-3.5-5.5-3.5-9s1-6.5 3.5-9z',
} as const;

export type EmptyIcon = keyof typeof emptyIcons;

/**
 * The one empty state of every empty list: a drawing of what would be there, the sentence, and an
 * optional action (a button or link). `compact` puts the drawing beside the sentence (sidebars, dialogs).
 */
export function EmptyState({ children, icon = 'generic', action, compact }: { children?: ReactNode; icon?: EmptyIcon; action?: ReactNode; compact?: boolean }) {
  return (
    <div className={compact ? 'state state_empty state_empty_compact' : 'state state_empty'}>
      <svg className="state_empty_icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
        <path d={emptyIcons[icon]} />
      </svg>
      <p className="state_empty_text">{children ?? m.state_empty()}</p>
      {action ? <div className="state_empty_action">{action}</div> : null}
    </div>
  );
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
