import type { ReactNode } from 'react';
import { toDisplayError, type DisplayError } from '../lib/errors.ts';
import { ConfirmDialog, CopyTextDialog, ErrorDialog, OkDialog, PromptDialog, type ConfirmOptions, type PromptOptions } from './basic-dialogs.tsx';
import type { OpenDialog } from './dialog-provider.tsx';

export type Dialogs = {
  /** Simple OK dialog. */
  ok(options: { title: string; message: ReactNode }): Promise<void>;
  /** OK with copyable text (e.g. a token shown once). */
  copyText(options: { title: string; message: ReactNode; text: string; label?: string }): Promise<void>;
  /** true when confirmed; Escape and Cancel give false. */
  confirm(options: ConfirmOptions): Promise<boolean>;
  /** The entered text, or null when cancelled. */
  prompt(options: PromptOptions): Promise<string | null>;
  /** Error dialog; with retry it offers Retry (resolves 'retry') next to OK (resolves 'ok'). */
  error(error: unknown, options?: { retry?: boolean }): Promise<'retry' | 'ok'>;
  /**
   * Runs the action; on failure shows the error dialog with Retry, which runs it again, and OK,
   * which abandons (spec §4): resolves with the result, or undefined once abandoned.
   */
  attempt<T>(action: () => Promise<T>): Promise<T | undefined>;
  /** Any other dialog, built on <Modal>. */
  open: OpenDialog;
};

export function createDialogApi(open: OpenDialog): Dialogs {
  const error = (failure: unknown, options: { retry?: boolean } = {}) => {
    const shown: DisplayError = toDisplayError(failure);
    return open<'retry' | 'ok'>((close) => <ErrorDialog error={shown} canRetry={options.retry ?? false} onClose={close} />);
  };
  return {
    ok: (options) => open<void>((close) => <OkDialog {...options} onClose={() => close()} />),
    copyText: (options) => open<void>((close) => <CopyTextDialog {...options} onClose={() => close()} />),
    confirm: (options) => open<boolean>((close) => <ConfirmDialog {...options} onClose={close} />),
    prompt: (options) => open<string | null>((close) => <PromptDialog {...options} onClose={close} />),
    error,
    async attempt<T>(action: () => Promise<T>): Promise<T | undefined> {
      for (;;) {
        try {
          return await action();
        } catch (failure) {
          if ((await error(failure, { retry: true })) === 'ok') return undefined;
        }
      }
    },
    open,
  };
}
