/**
 * Opens the real new package dialog inside the providers it needs (tRPC for the base package's index,
 * dialogs), and makes browser-like Files and drops for it. Load after './setup.ts' (useDom()).
 */
import { act, fireEvent, waitFor, within } from '@testing-library/react';
import { expect } from 'bun:test';
import { openNewPackageDialog, type NewPackageDialogOptions } from '../../src/client/dialogs/new-package/new-package-dialog.tsx';
import type { PackageDraft } from '../../src/client/upload/package-draft.ts';
import { openOnClick } from './client-harness.tsx';

export type OpenedDialog = { dialog: HTMLElement; result: Promise<PackageDraft | null> };

export async function openDialog(options: Partial<NewPackageDialogOptions> = {}): Promise<OpenedDialog> {
  const result = openOnClick((dialogs) => openNewPackageDialog(dialogs, { projectId: 'p1', maxSize: null, ...options }));
  const dialog = await within(document.body).findByRole('dialog');
  return { dialog, result };
}

/** A File as a browser gives it; `relativePath` is what <input webkitdirectory> sets. */
export function makeFile(name: string, content: string | Uint8Array<ArrayBuffer>, relativePath?: string): File {
  const file = new File([content], name);
  if (relativePath) Object.defineProperty(file, 'webkitRelativePath', { value: relativePath });
  return file;
}

/** Picks files through the dialog's hidden 'Add files' (or 'Add folder') input. */
export async function pickFiles(dialog: HTMLElement, files: File[], folder = false): Promise<void> {
  const input = within(dialog).getByTestId(folder ? 'new-package-folder-input' : 'new-package-files-input') as HTMLInputElement;
  Object.defineProperty(input, 'files', { value: files, configurable: true });
  await act(async () => {
    fireEvent.change(input);
  });
}

type FakeEntry = { name: string; isFile: boolean; isDirectory: boolean; file?: (ok: (file: File) => void) => void; createReader?: () => { readEntries: (ok: (entries: FakeEntry[]) => void) => void } };

/** A dropped folder as webkitGetAsEntry() describes it: { 'a.txt': 'text', sub: { ... } }. */
export type FolderSpec = { [name: string]: string | FolderSpec };

function fakeEntry(name: string, spec: string | FolderSpec): FakeEntry {
  if (typeof spec === 'string') return { name, isFile: true, isDirectory: false, file: (ok) => ok(makeFile(name, spec)) };
  const children = Object.entries(spec).map(([child, value]) => fakeEntry(child, value));
  return {
    name,
    isFile: false,
    isDirectory: true,
    createReader() {
      // Hands entries out one at a time, like a browser's batches, then an empty batch.
      let next = 0;
      return { readEntries: (ok) => ok(next < children.length ? [children[next++]!] : []) };
    },
  };
}

/** A DataTransfer of an outside drop: entries for folders, plain files otherwise. */
export function dropData(items: { [name: string]: string | FolderSpec }): object {
  const list = Object.entries(items).map(([name, spec]) => ({ kind: 'file', webkitGetAsEntry: () => fakeEntry(name, spec), getAsFile: () => null }));
  return { types: ['Files'], items: list, files: [], dropEffect: 'none' };
}

/** A DataTransfer for a drag between rows. */
export function rowDragData(): object {
  const data = new Map<string, string>();
  return { types: [], setData: (type: string, value: string) => data.set(type, value), getData: (type: string) => data.get(type) ?? '', dropEffect: 'none', effectAllowed: 'all', items: [], files: [] };
}

export function rowOf(dialog: HTMLElement, path: string): HTMLElement {
  const row = [...dialog.querySelectorAll<HTMLElement>('tr[data-path]')].find((element) => element.dataset.path === path);
  if (!row) throw new Error(`no row ${path}; rows: ${rowPaths(dialog).join(', ')}`);
  return row;
}

/**
 * A row's action (issue 19: one menu per row): opens the row's menu button ('Actions for {name}') and
 * returns its item named `name` (a menuitem, or the menuitemcheckbox 'Executable').
 */
export function rowAction(dialog: HTMLElement, path: string, name: string): HTMLElement {
  const row = rowOf(dialog, path);
  const button = within(row).getByRole('button', { name: `Actions for ${path.split('/').pop()}` });
  if (button.getAttribute('aria-expanded') !== 'true') fireEvent.click(button);
  const item = [...row.querySelectorAll<HTMLElement>('[role^="menuitem"]')].find((element) => element.textContent?.replace('✓', '').trim() === name);
  if (!item) throw new Error(`no menu item ${name} in ${path}`);
  return item;
}

export function rowPaths(dialog: HTMLElement): string[] {
  return [...dialog.querySelectorAll<HTMLElement>('tr[data-path]')].map((element) => element.dataset.path!);
}

export async function waitForReady(dialog: HTMLElement): Promise<void> {
  await waitFor(() => expect(within(dialog).queryByTestId('new-package-upload-size')).not.toBeNull());
}

export function createButton(dialog: HTMLElement): HTMLButtonElement {
  return within(dialog).getByRole('button', { name: 'Create' }) as HTMLButtonElement;
}
