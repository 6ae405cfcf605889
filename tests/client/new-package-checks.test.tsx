import { useDom } from './setup.ts';
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';

useDom();
const { act, fireEvent, waitFor, within } = await import('@testing-library/react');
const h = await import('./new-package-harness.tsx');

async function drop(dialog: HTMLElement, items: Parameters<typeof h.dropData>[0]) {
  await act(async () => {
    fireEvent.drop(within(dialog).getByTestId('file-tree'), { dataTransfer: h.dropData(items) });
  });
  await waitFor(() => expect(h.rowPaths(dialog).length).toBeGreaterThan(0));
}

const checkCodes = (dialog: HTMLElement) => [...dialog.querySelectorAll<HTMLElement>('.package_checks_item')].map((item) => item.dataset.code);
const checkItem = (dialog: HTMLElement, code: string) => dialog.querySelector<HTMLElement>(`.package_checks_item[data-code="${code}"]`)!;
const makeStart = (dialog: HTMLElement, path: string) => fireEvent.click(h.rowAction(dialog, path, 'Make start file'));

describe('new package dialog: checks and their fixes', () => {
  test('no files: the check says so and Create is disabled', async () => {
    const { dialog } = await h.openDialog();
    expect(checkCodes(dialog)).toEqual(['no_files']);
    expect(within(dialog).getByText('The package has no files.')).toBeTruthy();
    expect(h.createButton(dialog).disabled).toBe(true);
  });

  test('single root folder → replace it with its contents; no start file → choose one; web page → add os:web', async () => {
    const { dialog } = await h.openDialog();
    await drop(dialog, { game: { 'index.html': '<html>', 'notes.txt': 'n' } });
    expect(checkCodes(dialog)).toEqual(['single_root_directory', 'entrypoint_not_set']);
    const single = checkItem(dialog, 'single_root_directory');
    expect(single.textContent).toContain('Everything is inside the folder game.');
    fireEvent.click(within(single).getByRole('button', { name: 'Replace the folder with its contents' }));
    await waitFor(() => expect(h.rowPaths(dialog)).toEqual(['index.html', 'notes.txt']));
    expect(checkCodes(dialog)).toEqual(['entrypoint_not_set']);

    const notSet = checkItem(dialog, 'entrypoint_not_set');
    const candidates = within(notSet).getAllByRole('option').map((option) => option.textContent);
    expect(candidates).toEqual(['index.html']);
    fireEvent.click(within(notSet).getByRole('button', { name: 'Choose start file' }));
    await waitFor(() => expect(checkCodes(dialog)).toEqual(['html_needs_web']));
    const web = checkItem(dialog, 'html_needs_web');
    expect(web.textContent).toContain('The start file index.html is a web page: add the tag os:web');
    fireEvent.click(within(web).getByRole('button', { name: 'Add tag os:web' }));
    await waitFor(() => expect(within(dialog).getByText('No problems found.')).toBeTruthy());
    expect((within(dialog).getByRole('checkbox', { name: /web/i }) as HTMLInputElement).checked).toBe(true);
  });

  test('suggested tags for .exe and .msi, one and several', async () => {
    const { dialog } = await h.openDialog();
    await drop(dialog, { 'game.exe': 'MZ', 'setup.msi': 'msi' });
    makeStart(dialog, 'game.exe');
    await waitFor(() => expect(checkCodes(dialog)).toEqual(['extension_suggests_tag']));
    expect(checkItem(dialog, 'extension_suggests_tag').textContent).toContain('ends in .exe, which suggests the tags os:windows');
    makeStart(dialog, 'setup.msi');
    const button = await within(dialog).findByRole('button', { name: 'Add tags os:windows, packaging:installer' });
    fireEvent.click(button);
    await waitFor(() => expect(checkCodes(dialog)).toEqual([]));
  });

  test('a start file that is data or an archive: choose another', async () => {
    const { dialog } = await h.openDialog();
    await drop(dialog, { 'readme.txt': 'r', 'game.zip': 'PK', 'play.html': '<html>' });
    makeStart(dialog, 'readme.txt');
    await waitFor(() => expect(checkCodes(dialog)).toEqual(['wrong_extension']));
    expect(checkItem(dialog, 'wrong_extension').textContent).toContain('The start file readme.txt ends in .txt, which is probably not a program.');
    makeStart(dialog, 'game.zip');
    await waitFor(() => expect(checkCodes(dialog)).toEqual(['archive_entrypoint']));
    const archive = checkItem(dialog, 'archive_entrypoint');
    expect(archive.textContent).toContain('is an archive (.zip)');
    fireEvent.click(within(archive).getByRole('button', { name: 'Choose start file' }));
    await waitFor(() => expect(checkCodes(dialog)).toEqual(['html_needs_web']));
    expect(within(h.rowOf(dialog, 'play.html')).getByText('Start file')).toBeTruthy();
  });

  test('Linux start file without the executable bit → Mark executable', async () => {
    const { dialog } = await h.openDialog({ initialTags: ['os:linux'] });
    // No '#!' line: nothing marks it executable by itself.
    await drop(dialog, { 'run.sh': 'echo run' });
    makeStart(dialog, 'run.sh');
    await waitFor(() => expect(checkCodes(dialog)).toEqual(['not_executable']));
    // A Linux script without its bit cannot start: Create waits for the fix.
    expect(checkItem(dialog, 'not_executable').dataset.blocksCreate).toBe('true');
    await h.waitForReady(dialog);
    expect(h.createButton(dialog).disabled).toBe(true);
    expect(checkItem(dialog, 'not_executable').textContent).toContain('The start file run.sh is not marked executable, so it cannot start on Linux or macOS.');
    fireEvent.click(within(checkItem(dialog, 'not_executable')).getByRole('button', { name: 'Mark executable' }));
    await waitFor(() => expect(checkCodes(dialog)).toEqual([]));
    expect(h.rowAction(dialog, 'run.sh', 'Executable').getAttribute('aria-checked')).toBe('true');
    await waitFor(() => expect(h.createButton(dialog).disabled).toBe(false));
  });

  test('no likely start file: the fix explains where to choose one', async () => {
    const { dialog } = await h.openDialog();
    await drop(dialog, { 'data.bin': 'x' });
    expect(checkItem(dialog, 'entrypoint_not_set').textContent).toContain('No file looks like a program.');
  });
});

describe('new package dialog: Create', () => {
  test('disabled while files are being read, enabled once the index is ready', async () => {
    const { dialog } = await h.openDialog();
    // A file whose bytes never arrive: the index never gets ready.
    const stuck = { name: 'slow.bin', size: 10, webkitRelativePath: '', stream: () => new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined) }) };
    await h.pickFiles(dialog, [stuck as unknown as File]);
    await waitFor(() => expect(within(dialog).getByText('Reading files: 0%')).toBeTruthy());
    expect(h.createButton(dialog).disabled).toBe(true);
    fireEvent.click(h.rowAction(dialog, 'slow.bin', 'Remove'));
    await h.pickFiles(dialog, [h.makeFile('fast.bin', 'abc')]);
    await h.waitForReady(dialog);
    expect(h.createButton(dialog).disabled).toBe(false);
  });

  test('an upload above the project quota is refused before it starts', async () => {
    const { dialog } = await h.openDialog({ maxSize: 1500 });
    await h.pickFiles(dialog, [h.makeFile('big.bin', 'x'.repeat(3000))]);
    const refusal = await within(dialog).findByTestId('new-package-too-large');
    expect(refusal.textContent).toMatch(/^The package is 3\.\d KiB, more than the 1\.5 KiB this project allows\.$/);
    expect(h.createButton(dialog).disabled).toBe(true);
    fireEvent.click(h.rowAction(dialog, 'big.bin', 'Remove'));
    await h.pickFiles(dialog, [h.makeFile('small.bin', 'x'.repeat(100))]);
    await h.waitForReady(dialog);
    expect(within(dialog).queryByTestId('new-package-too-large')).toBeNull();
    expect(h.createButton(dialog).disabled).toBe(false);
  });

  test('Create gives the draft: tree with start file, tags in order, trimmed title; the placeholder is the default title', async () => {
    const opened = await h.openDialog({ initialTags: ['bits:64', 'os:linux', 'arch:x86'] });
    const { dialog } = opened;
    const title = within(dialog).getByLabelText('Title') as HTMLInputElement;
    expect(title.placeholder).toBe('Linux x86 64-bit');
    fireEvent.change(title, { target: { value: '  Nightly  ' } });
    await h.pickFiles(dialog, [h.makeFile('game.x86_64', new Uint8Array(readFileSync('/bin/true')))]);
    makeStart(dialog, 'game.x86_64');
    await h.waitForReady(dialog);
    await waitFor(() => expect(h.createButton(dialog).disabled).toBe(false));
    fireEvent.click(h.createButton(dialog));
    const draft = await opened.result;
    expect(draft).not.toBeNull();
    expect(draft!.tags).toEqual(['os:linux', 'arch:x86', 'bits:64']);
    expect(draft!.title).toBe('Nightly');
    expect(draft!.basePackage).toBeNull();
    expect(draft!.tree.entrypoint).toEqual(['game.x86_64']);
    // An ELF by its header: marked executable although the browser gave no mode.
    expect(draft!.tree.root.entries.get('game.x86_64')?.mode).toBe(1);
    expect(within(document.body).queryByRole('dialog')).toBeNull();
  });

  test('an empty title becomes null; Cancel gives null', async () => {
    const first = await h.openDialog();
    await drop(first.dialog, { 'index.html': '<html>' });
    await h.waitForReady(first.dialog);
    fireEvent.click(h.createButton(first.dialog));
    expect((await first.result)?.title).toBeNull();
    const second = await h.openDialog();
    fireEvent.click(within(second.dialog).getByRole('button', { name: 'Cancel' }));
    expect(await second.result).toBeNull();
  });
});
