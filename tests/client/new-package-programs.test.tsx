import { useDom } from './setup.ts';
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';

useDom();
const { fireEvent, waitFor, within } = await import('@testing-library/react');
const h = await import('./new-package-harness.tsx');

const elfBytes = () => new Uint8Array(readFileSync('/bin/true'));
const checkCodes = (dialog: HTMLElement) => [...dialog.querySelectorAll<HTMLElement>('.package_checks_item')].map((item) => item.dataset.code);
const checkItem = (dialog: HTMLElement, code: string) => dialog.querySelector<HTMLElement>(`.package_checks_item[data-code="${code}"]`)!;
const isExecutable = (dialog: HTMLElement, path: string) => within(h.rowOf(dialog, path)).queryByText('Executable') !== null;

/** The folder: a Linux build with an extensionless ELF, a #! launcher and data, picked with <input webkitdirectory>. */
async function pickLinuxBuild(dialog: HTMLElement) {
  await h.pickFiles(
    dialog,
    [
      h.makeFile('hopper', elfBytes(), 'build/hopper'),
      h.makeFile('start', '#!/bin/sh\nexec "$(dirname "$0")/hopper"\n', 'build/start'),
      h.makeFile('level.pck', 'GDPC', 'build/level.pck'),
    ],
    true,
  );
  fireEvent.click(within(checkItem(dialog, 'single_root_directory')).getByRole('button', { name: 'Replace the folder with its contents' }));
  await waitFor(() => expect(h.rowPaths(dialog)).toEqual(['hopper', 'level.pck', 'start']));
}

describe('new package dialog: programs recognised by their content (issue 29)', () => {
  test('an extensionless ELF and a #! script are marked executable and offered as start files, no tags ticked', async () => {
    const opened = await h.openDialog();
    const { dialog } = opened;
    await pickLinuxBuild(dialog);
    await waitFor(() => expect(isExecutable(dialog, 'hopper')).toBe(true));
    expect(isExecutable(dialog, 'start')).toBe(true);
    expect(isExecutable(dialog, 'level.pck')).toBe(false);

    // "No file looks like a program" no more: both are offered, the program first.
    const notSet = checkItem(dialog, 'entrypoint_not_set');
    expect(notSet.textContent).not.toContain('No file looks like a program');
    expect(within(notSet).getAllByRole('option').map((option) => option.textContent)).toEqual(['hopper', 'start']);
    fireEvent.click(within(notSet).getByRole('button', { name: 'Choose start file' }));

    // Its header names the tags, one click adds them.
    await waitFor(() => expect(checkCodes(dialog)).toEqual(['header_suggests_tag']));
    expect(checkItem(dialog, 'header_suggests_tag').textContent).toContain('The header of the start file hopper (ELF) suggests the tags os:linux, arch:x86, bits:64.');
    fireEvent.click(within(checkItem(dialog, 'header_suggests_tag')).getByRole('button', { name: 'Add tags os:linux, arch:x86, bits:64' }));
    await waitFor(() => expect(within(dialog).getByText('No problems found.')).toBeTruthy());
    expect((within(dialog).getByRole('checkbox', { name: /linux/i }) as HTMLInputElement).checked).toBe(true);

    await h.waitForReady(dialog);
    await waitFor(() => expect(h.createButton(dialog).disabled).toBe(false));
    fireEvent.click(h.createButton(dialog));
    const draft = await opened.result;
    expect(draft!.tags).toEqual(['os:linux', 'arch:x86', 'bits:64']);
    expect(draft!.tree.entrypoint).toEqual(['hopper']);
    const modes = Object.fromEntries([...draft!.tree.root.entries.values()].map((entry) => [entry.name, entry.mode]));
    expect(modes).toEqual({ hopper: 1, 'level.pck': 0, start: 1 });
  });

  test('unticking the start program\'s bit disables Create with a Mark executable fix, whatever the tags', async () => {
    const { dialog } = await h.openDialog({ initialTags: ['os:windows'] });
    await pickLinuxBuild(dialog);
    await waitFor(() => expect(isExecutable(dialog, 'hopper')).toBe(true));
    fireEvent.click(h.rowAction(dialog, 'hopper', 'Make start file'));
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    fireEvent.click(h.rowAction(dialog, 'hopper', 'Executable'));
    await waitFor(() => expect(checkCodes(dialog)).toContain('not_executable'));
    const item = checkItem(dialog, 'not_executable');
    expect(item.dataset.blocksCreate).toBe('true');
    expect(item.textContent).toContain('The package cannot be created until this is fixed: its start file would not run.');
    await h.waitForReady(dialog);
    expect(h.createButton(dialog).disabled).toBe(true);
    // Still the developer's choice after more files come: the dialog does not set it back by itself.
    await h.pickFiles(dialog, [h.makeFile('extra.txt', 'x')]);
    await h.waitForReady(dialog);
    expect(isExecutable(dialog, 'hopper')).toBe(false);
    expect(h.createButton(dialog).disabled).toBe(true);

    fireEvent.click(within(checkItem(dialog, 'not_executable')).getByRole('button', { name: 'Mark executable' }));
    await waitFor(() => expect(checkCodes(dialog)).not.toContain('not_executable'));
    await h.waitForReady(dialog);
    await waitFor(() => expect(h.createButton(dialog).disabled).toBe(false));
  });
});
