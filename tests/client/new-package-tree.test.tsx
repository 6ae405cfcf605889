import { useDom } from './setup.ts';
import { describe, expect, test } from 'bun:test';

useDom();
const { act, fireEvent, waitFor, within } = await import('@testing-library/react');
const h = await import('./new-package-harness.tsx');
const { MODE_EXECUTABLE } = await import('../../src/shared/archive/index.ts');

/** Opens the dialog and drops `items` on the tree's top level. */
async function withDropped(items: Parameters<typeof h.dropData>[0]) {
  const opened = await h.openDialog();
  await act(async () => {
    fireEvent.drop(within(opened.dialog).getByTestId('file-tree'), { dataTransfer: h.dropData(items) });
  });
  await waitFor(() => expect(h.rowPaths(opened.dialog).length).toBeGreaterThan(0));
  return opened;
}

describe('new package dialog: file tree editor', () => {
  test('Add files and Add folder put files at the top level with their folder paths', async () => {
    const { dialog } = await h.openDialog();
    expect(within(dialog).getByText('No files yet.')).toBeTruthy();
    await h.pickFiles(dialog, [h.makeFile('readme.txt', 'hi')]);
    await h.pickFiles(dialog, [h.makeFile('game.exe', 'MZ', 'build/game.exe'), h.makeFile('data.pak', 'x'.repeat(2000), 'build/assets/data.pak')], true);
    await waitFor(() => expect(h.rowPaths(dialog)).toEqual(['build', 'build/assets', 'build/game.exe', 'readme.txt']));
    // Deeper folders start collapsed; the summary counts every file.
    expect(h.rowOf(dialog, 'build/assets').getAttribute('aria-expanded')).toBe('false');
    expect(within(dialog).getByTestId('new-package-summary').textContent).toBe('3 files, 2.0 KiB');
    expect(within(h.rowOf(dialog, 'build/assets')).getByText('2.0 KiB')).toBeTruthy();
  });

  test('dropping a folder reads it recursively; dropping onto a folder row puts files inside it', async () => {
    const { dialog } = await withDropped({ game: { 'index.html': '<html>', js: { 'main.js': 'go()' } } });
    expect(h.rowPaths(dialog)).toEqual(['game', 'game/js', 'game/index.html']);
    await act(async () => {
      fireEvent.drop(h.rowOf(dialog, 'game/js'), { dataTransfer: h.dropData({ 'extra.js': '1' }) });
    });
    fireEvent.keyDown(h.rowOf(dialog, 'game/js'), { key: 'ArrowRight' });
    await waitFor(() => expect(h.rowPaths(dialog)).toContain('game/js/extra.js'));
    // Dropped on a file: into that file's folder.
    await act(async () => {
      fireEvent.drop(h.rowOf(dialog, 'game/index.html'), { dataTransfer: h.dropData({ 'style.css': 'b{}' }) });
    });
    await waitFor(() => expect(h.rowPaths(dialog)).toContain('game/style.css'));
  });

  test('files dropped elsewhere in the dialog go to the top level', async () => {
    const { dialog } = await h.openDialog();
    await act(async () => {
      fireEvent.drop(within(dialog).getByLabelText('Title'), { dataTransfer: h.dropData({ 'anywhere.txt': 'a' }) });
    });
    await waitFor(() => expect(h.rowPaths(dialog)).toEqual(['anywhere.txt']));
  });

  test('a name already taken is refused with its path, the rest is added', async () => {
    const { dialog } = await withDropped({ 'a.txt': '1' });
    await act(async () => {
      fireEvent.drop(within(dialog).getByTestId('file-tree'), { dataTransfer: h.dropData({ 'a.txt': '2', 'b.txt': '3' }) });
    });
    await waitFor(() => expect(within(dialog).getByTestId('new-package-edit-problem').textContent).toBe('a.txt is already in the package.'));
    expect(h.rowPaths(dialog)).toEqual(['a.txt', 'b.txt']);
  });

  test('a name with a bidirectional control is refused with its path shown escaped, the rest is added', async () => {
    const { dialog } = await withDropped({ 'a.txt': '1' });
    await act(async () => {
      fireEvent.drop(within(dialog).getByTestId('file-tree'), { dataTransfer: h.dropData({ 'photo\u202egnp.exe': 'MZ', 'b.txt': '3' }) });
    });
    await waitFor(() =>
      expect(within(dialog).getByTestId('new-package-edit-problem').textContent).toBe(
        'photo\\u202Egnp.exe cannot be added: its name holds an invisible direction control that can make it look like another name (a program shown as a picture, say). Rename it first.',
      ),
    );
    expect(h.rowPaths(dialog)).toEqual(['a.txt', 'b.txt']);
  });

  test('dragging a row onto a folder moves it; into itself or a descendant is ignored', async () => {
    const { dialog } = await withDropped({ outer: { inner: { 'deep.txt': 'd' } }, 'loose.txt': 'l' });
    const drag = (from: string, to: string | null) => {
      const data = h.rowDragData();
      fireEvent.dragStart(h.rowOf(dialog, from), { dataTransfer: data });
      const target = to === null ? within(dialog).getByTestId('file-tree') : h.rowOf(dialog, to);
      fireEvent.dragOver(target, { dataTransfer: data });
      fireEvent.drop(target, { dataTransfer: data });
    };
    drag('loose.txt', 'outer');
    await waitFor(() => expect(h.rowPaths(dialog)).toContain('outer/loose.txt'));
    const before = h.rowPaths(dialog);
    drag('outer', 'outer');
    drag('outer', 'outer/inner');
    expect(h.rowPaths(dialog)).toEqual(before);
    expect(within(dialog).queryByTestId('new-package-edit-problem')).toBeNull();
    // Back to the top level by dropping on the tree outside any row.
    drag('outer/loose.txt', null);
    await waitFor(() => expect(h.rowPaths(dialog)).toContain('loose.txt'));
  });

  test('Move… offers the folders a row may go to and moves it', async () => {
    const { dialog } = await withDropped({ a: { 'x.txt': 'x' }, b: {}, 'y.txt': 'y' });
    fireEvent.click(h.rowAction(dialog, 'a', 'Move…'));
    const move = await within(document.body).findByRole('dialog', { name: 'Move a' });
    const options = within(move).getAllByRole('option').map((option) => option.textContent);
    expect(options).toEqual(['b']); // not itself, not where it is (the top level)
    fireEvent.click(within(move).getByRole('button', { name: 'Move' }));
    await waitFor(() => expect(h.rowPaths(dialog)).toContain('b/a'));
  });

  test('explode, start file, executable and remove act on the tree', async () => {
    // No '#!' line: nothing marks it executable by itself (file-modes.ts), the menu does.
    const opened = await withDropped({ build: { 'run.sh': 'echo run', lib: { 'x.so': 'elf' } } });
    const { dialog } = opened;
    fireEvent.click(h.rowAction(dialog, 'build', 'Replace with contents'));
    await waitFor(() => expect(h.rowPaths(dialog)).toEqual(['lib', 'lib/x.so', 'run.sh']));
    fireEvent.click(h.rowAction(dialog, 'run.sh', 'Make start file'));
    await waitFor(() => expect(within(h.rowOf(dialog, 'run.sh')).getByText('Start file')).toBeTruthy());
    // The start file's menu no longer offers to make it the start file.
    expect(() => h.rowAction(dialog, 'run.sh', 'Make start file')).toThrow();
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    const executable = h.rowAction(dialog, 'run.sh', 'Executable');
    expect(executable.getAttribute('role')).toBe('menuitemcheckbox');
    expect(executable.getAttribute('aria-checked')).toBe('false');
    fireEvent.click(executable);
    await waitFor(() => expect(within(h.rowOf(dialog, 'run.sh')).getByText('Executable')).toBeTruthy());
    expect(h.rowAction(dialog, 'run.sh', 'Executable').getAttribute('aria-checked')).toBe('true');
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    fireEvent.click(h.rowAction(dialog, 'lib', 'Remove'));
    await waitFor(() => expect(h.rowPaths(dialog)).toEqual(['run.sh']));
    await h.waitForReady(dialog);
    fireEvent.click(h.createButton(dialog));
    const draft = await opened.result;
    expect(draft?.tree.entrypoint).toEqual(['run.sh']);
    const file = draft!.tree.root.entries.get('run.sh');
    expect(file?.kind === 'file' && (file.mode & MODE_EXECUTABLE) !== 0).toBe(true);
    expect(draft!.tree.root.entries.has('lib')).toBe(false);
  });

  test('keyboard: arrows move between rows and open and close folders; Delete removes', async () => {
    const { dialog } = await withDropped({ top: { mid: { 'leaf.txt': 'l' } }, 'z.txt': 'z' });
    const top = h.rowOf(dialog, 'top');
    top.focus();
    fireEvent.keyDown(top, { key: 'ArrowDown' });
    await waitFor(() => expect(document.activeElement).toBe(h.rowOf(dialog, 'top/mid')));
    fireEvent.keyDown(h.rowOf(dialog, 'top/mid'), { key: 'ArrowRight' });
    await waitFor(() => expect(h.rowPaths(dialog)).toContain('top/mid/leaf.txt'));
    fireEvent.keyDown(h.rowOf(dialog, 'top/mid'), { key: 'ArrowRight' });
    await waitFor(() => expect(document.activeElement).toBe(h.rowOf(dialog, 'top/mid/leaf.txt')));
    fireEvent.keyDown(h.rowOf(dialog, 'top/mid/leaf.txt'), { key: 'ArrowLeft' });
    await waitFor(() => expect(document.activeElement).toBe(h.rowOf(dialog, 'top/mid')));
    fireEvent.keyDown(h.rowOf(dialog, 'top/mid'), { key: 'ArrowLeft' });
    await waitFor(() => expect(h.rowPaths(dialog)).not.toContain('top/mid/leaf.txt'));
    fireEvent.keyDown(h.rowOf(dialog, 'top/mid'), { key: 'End' });
    await waitFor(() => expect(document.activeElement).toBe(h.rowOf(dialog, 'z.txt')));
    // Only the focused row's menu button is in the tab order.
    expect(within(h.rowOf(dialog, 'z.txt')).getByRole('button', { name: 'Actions for z.txt' }).tabIndex).toBe(0);
    expect(within(h.rowOf(dialog, 'top')).getByRole('button', { name: 'Actions for top' }).tabIndex).toBe(-1);
    fireEvent.keyDown(h.rowOf(dialog, 'z.txt'), { key: 'Delete' });
    await waitFor(() => expect(h.rowPaths(dialog)).toEqual(['top', 'top/mid']));
  });

  test('row menu: a menu button per row; arrows, Home, End and a letter move; Escape closes it, not the dialog', async () => {
    const { dialog } = await withDropped({ 'game.exe': 'MZ', 'notes.txt': 'n' });
    const row = h.rowOf(dialog, 'game.exe');
    // One control per row instead of four buttons and a checkbox.
    expect(within(row).getAllByRole('button').filter((button) => !button.hasAttribute('aria-hidden'))).toHaveLength(1);
    expect(within(row).queryByRole('checkbox')).toBeNull();
    const button = within(row).getByRole('button', { name: 'Actions for game.exe' });
    expect(button.getAttribute('aria-haspopup')).toBe('menu');
    expect(button.getAttribute('aria-expanded')).toBe('false');
    button.focus();
    fireEvent.keyDown(button, { key: 'ArrowDown' });
    const menu = await within(row).findByRole('menu', { name: 'Actions for game.exe' });
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(button.getAttribute('aria-controls')).toBe(menu.id);
    const names = () => [...menu.querySelectorAll('[role^="menuitem"]')].map((item) => item.textContent?.replace('✓', '').trim());
    expect(names()).toEqual(['Make start file', 'Executable', 'Move…', 'Remove']);
    const focused = () => document.activeElement?.textContent?.replace('✓', '').trim();
    await waitFor(() => expect(focused()).toBe('Make start file'));
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    await waitFor(() => expect(focused()).toBe('Executable'));
    fireEvent.keyDown(document.activeElement!, { key: 'End' });
    await waitFor(() => expect(focused()).toBe('Remove'));
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    await waitFor(() => expect(focused()).toBe('Make start file'));
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowUp' });
    await waitFor(() => expect(focused()).toBe('Remove'));
    fireEvent.keyDown(document.activeElement!, { key: 'm' });
    await waitFor(() => expect(focused()).toBe('Make start file'));
    fireEvent.keyDown(document.activeElement!, { key: 'm' });
    await waitFor(() => expect(focused()).toBe('Move…'));
    fireEvent.keyDown(document.activeElement!, { key: 'Home' });
    await waitFor(() => expect(focused()).toBe('Make start file'));
    // Escape: the menu closes, focus goes back to its button, the dialog stays open.
    // (fireEvent answers false when the event's default action was prevented: the dialog's cancel.)
    expect(fireEvent.keyDown(document.activeElement!, { key: 'Escape' })).toBe(false);
    await waitFor(() => expect(within(row).queryByRole('menu')).toBeNull());
    expect(document.activeElement).toBe(button);
    expect(button.getAttribute('aria-expanded')).toBe('false');
    expect(dialog.isConnected).toBe(true);
    // ArrowUp opens on the last item; a click outside closes.
    fireEvent.keyDown(button, { key: 'ArrowUp' });
    await waitFor(() => expect(focused()).toBe('Remove'));
    fireEvent.pointerDown(h.rowOf(dialog, 'notes.txt'));
    await waitFor(() => expect(within(row).queryByRole('menu')).toBeNull());
  });
});
