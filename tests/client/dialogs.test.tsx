import { useDom } from './setup.ts';
import { describe, expect, test } from 'bun:test';
import type { Dialogs } from '../../src/client/dialogs/dialog-api.tsx';

useDom();
const { act, fireEvent, render, waitFor, within } = await import('@testing-library/react');
const { useEffect } = await import('react');
const { DialogProvider, useDialogs } = await import('../../src/client/dialogs/dialog-provider.tsx');
const { ApiError } = await import('../../src/client/lib/api.ts');

/** Renders a DialogProvider and hands back its promise API. */
async function renderDialogs(): Promise<Dialogs> {
  let api: Dialogs | undefined;
  function Grab() {
    const dialogs = useDialogs();
    useEffect(() => {
      api = dialogs;
    }, [dialogs]);
    return <button type="button">outside</button>;
  }
  render(
    <DialogProvider>
      <Grab />
    </DialogProvider>,
  );
  await waitFor(() => expect(api).toBeDefined());
  return api!;
}

const body = () => within(document.body);

function pressEscape(dialog: HTMLElement) {
  // The browser turns Escape on a modal dialog into a cancel event; happy-dom does not, so send it.
  fireEvent(dialog, new Event('cancel', { cancelable: true }));
}

describe('dialogs', () => {
  test('simple OK: titled, described, modal, resolves on OK', async () => {
    const dialogs = await renderDialogs();
    let done = false;
    act(() => void dialogs.ok({ title: 'Saved', message: 'All good.' }).then(() => (done = true)));
    const dialog = await body().findByRole('dialog', { name: 'Saved' });
    expect((dialog as HTMLDialogElement).open).toBe(true);
    expect(dialog.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(dialog.getAttribute('aria-describedby')!)?.textContent).toBe('All good.');
    const ok = within(dialog).getByRole('button', { name: 'OK' });
    expect(document.activeElement).toBe(ok);
    fireEvent.click(ok);
    await waitFor(() => expect(done).toBe(true));
    expect(body().queryByRole('dialog')).toBeNull();
  });

  test('confirm: OK gives true, Escape and Cancel give false; danger focuses Cancel', async () => {
    const dialogs = await renderDialogs();
    let answer: boolean | undefined;
    act(() => void dialogs.confirm({ title: 'Go?', message: 'Sure?' }).then((value) => (answer = value)));
    let dialog = await body().findByRole('dialog', { name: 'Go?' });
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'OK' }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(answer).toBe(true));

    act(() => void dialogs.confirm({ title: 'Delete?', message: 'Gone for good', danger: true, defaultFocus: 'cancel', confirmLabel: 'Delete' }).then((value) => (answer = value)));
    dialog = await body().findByRole('alertdialog', { name: 'Delete?' });
    expect(dialog.className).toContain('dialog_danger');
    expect(within(dialog).getByRole('button', { name: 'Delete' }).className).toContain('button_danger');
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    pressEscape(dialog);
    await waitFor(() => expect(answer).toBe(false));

    answer = undefined;
    act(() => void dialogs.confirm({ title: 'Again?', message: '' }).then((value) => (answer = value)));
    dialog = await body().findByRole('dialog', { name: 'Again?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(answer).toBe(false));
  });

  test('copyable text: the text is in a labelled read-only field with a Copy button', async () => {
    const dialogs = await renderDialogs();
    act(() => void dialogs.copyText({ title: 'Token', message: 'Shown once', text: 'ct_secret' }));
    const dialog = await body().findByRole('dialog', { name: 'Token' });
    const field = within(dialog).getByRole('textbox', { name: 'Token' }) as HTMLInputElement;
    expect(field.value).toBe('ct_secret');
    expect(field.readOnly).toBe(true);
    let copied = '';
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (text: string) => void (copied = text) } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Copy' }));
    await waitFor(() => expect(copied).toBe('ct_secret'));
    expect(within(dialog).getByRole('status').textContent).toBe('Copied');
    fireEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(body().queryByRole('dialog')).toBeNull());
  });

  test('prompt: refuses empty, returns the text; Cancel gives null', async () => {
    const dialogs = await renderDialogs();
    let answer: string | null | undefined;
    act(() => void dialogs.prompt({ title: 'Name', label: 'New name', initialValue: '' }).then((value) => (answer = value)));
    const dialog = await body().findByRole('dialog', { name: 'Name' });
    const input = within(dialog).getByLabelText('New name');
    expect(document.activeElement).toBe(input);
    fireEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('This field is required.');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    fireEvent.change(input, { target: { value: 'Pixel' } });
    fireEvent.submit(input.closest('form')!);
    await waitFor(() => expect(answer).toBe('Pixel'));

    act(() => void dialogs.prompt({ title: 'Other', label: 'Value' }).then((value) => (answer = value)));
    const second = await body().findByRole('dialog', { name: 'Other' });
    fireEvent.click(within(second).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(answer).toBeNull());
  });

  test('prompt with a length limit: at the limit it says so (the browser cuts the rest silently); a problem can show as it opens (issue 29)', async () => {
    const dialogs = await renderDialogs();
    let answer: string | null | undefined;
    act(() => void dialogs.prompt({ title: 'Rename', label: 'Title', initialValue: 'abc', maxLength: 8, initialProblem: 'A branch with this title already exists.' }).then((value) => (answer = value)));
    const dialog = await body().findByRole('dialog', { name: 'Rename' });
    const input = within(dialog).getByLabelText('Title') as HTMLInputElement;
    expect(input.maxLength).toBe(8);
    expect(within(dialog).getByRole('alert').textContent).toBe('A branch with this title already exists.');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(dialog.querySelector('.field_limit')?.textContent).toBe('');
    fireEvent.change(input, { target: { value: 'abcdefgh' } });
    // Typing clears the server's problem; at 8 of 8 the note appears.
    expect(within(dialog).queryByRole('alert')).toBeNull();
    expect(dialog.querySelector('.field_limit')?.textContent).toBe('Limit reached: at most 8 characters, the rest is cut off.');
    expect(input.getAttribute('aria-describedby')).toContain(dialog.querySelector('.field_limit')!.id);
    fireEvent.change(input, { target: { value: 'abcdefg' } });
    expect(dialog.querySelector('.field_limit')?.textContent).toBe('');
    fireEvent.submit(input.closest('form')!);
    await waitFor(() => expect(answer).toBe('abcdefg'));
  });

  test('error: header Error, "Error: {text}." for known codes, unknown codes raw', async () => {
    const dialogs = await renderDialogs();
    act(() => void dialogs.error(new ApiError('name_conflict', 'taken', { status: 409 })));
    let dialog = await body().findByRole('alertdialog', { name: 'Error' });
    expect(within(dialog).getByText('Error: this name is already taken.')).toBeTruthy();
    expect(within(dialog).queryByRole('button', { name: 'Retry' })).toBeNull();
    fireEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(body().queryByRole('alertdialog')).toBeNull());

    act(() => void dialogs.error(new ApiError('strange_new_code')));
    dialog = await body().findByRole('alertdialog', { name: 'Error' });
    expect(within(dialog).getByText('Error: strange_new_code.')).toBeTruthy();
    pressEscape(dialog);
    await waitFor(() => expect(body().queryByRole('alertdialog')).toBeNull());

    act(() => void dialogs.error(new ApiError('http_502', 'Bad Gateway', { status: 502, statusText: 'Bad Gateway' })));
    dialog = await body().findByRole('alertdialog', { name: 'Error' });
    expect(within(dialog).getByText('Error: Bad Gateway.')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'OK' }));

    act(() => void dialogs.error(new ApiError('http_418', "I'm a teapot", { status: 418, statusText: "I'm a teapot" })));
    dialog = await body().findByRole('alertdialog', { name: 'Error' });
    expect(within(dialog).getByText("Error: Generic Error 418 I'm a teapot.")).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
  });

  test('attempt: Retry re-runs the action, OK abandons it', async () => {
    const dialogs = await renderDialogs();
    let runs = 0;
    let result: string | undefined = 'pending';
    act(
      () =>
        void dialogs
          .attempt(async () => {
            runs += 1;
            if (runs < 3) throw new ApiError('timeout');
            return 'done';
          })
          .then((value) => (result = value)),
    );
    for (let shown = 1; shown <= 2; shown++) {
      const dialog = await body().findByRole('alertdialog', { name: 'Error' });
      expect(within(dialog).getByText('Error: the server took too long.')).toBeTruthy();
      fireEvent.click(within(dialog).getByRole('button', { name: 'Retry' }));
      await waitFor(() => expect(runs).toBe(shown + 1));
    }
    await waitFor(() => expect(result).toBe('done'));

    runs = 0;
    act(
      () =>
        void dialogs
          .attempt(async () => {
            runs += 1;
            throw new ApiError('not_supported');
          })
          .then((value) => (result = value)),
    );
    const dialog = await body().findByRole('alertdialog', { name: 'Error' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(result).toBeUndefined());
    expect(runs).toBe(1);
  });

  test('a dialog over a dialog: closing the top one returns focus to the one below', async () => {
    const dialogs = await renderDialogs();
    act(() => void dialogs.ok({ title: 'First', message: '' }));
    const first = await body().findByRole('dialog', { name: 'First' });
    const firstOk = within(first).getByRole('button', { name: 'OK' });
    act(() => void dialogs.ok({ title: 'Second', message: '' }));
    const second = await body().findByRole('dialog', { name: 'Second' });
    fireEvent.click(within(second).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(body().queryByRole('dialog', { name: 'Second' })).toBeNull());
    expect(document.activeElement).toBe(firstOk);
  });
});
