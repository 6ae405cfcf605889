import { useDom } from './setup.ts';
import { describe, expect, test } from 'bun:test';

/**
 * Issue 29 (a new user's walk, Arabic): a folder row read '/build', its slash on the wrong side. Every
 * path the New package dialog shows is isolated left to right inside right-to-left text: the tree's
 * names, the checks' paths, extensions and tags, the start file choices, the refusals of an edit.
 * (tests/e2e/rtl.test.ts measures the drawn order in Chromium.)
 */
useDom();
const { act, fireEvent, waitFor, within } = await import('@testing-library/react');
const h = await import('./new-package-harness.tsx');

const checkItem = (dialog: HTMLElement, code: string) => dialog.querySelector<HTMLElement>(`.package_checks_item[data-code="${code}"]`)!;

describe('paths in the New package dialog read left to right', () => {
  test('tree rows, the checks\' paths, extensions and tags, the start file choices and an edit\'s refusal', async () => {
    const { dialog } = await h.openDialog();
    await h.pickFiles(dialog, [h.makeFile('game.exe', 'MZ', 'build/game.exe'), h.makeFile('setup.zip', 'PK', 'build/setup.zip')], true);
    await waitFor(() => expect(h.rowPaths(dialog)).toContain('build'));
    const name = h.rowOf(dialog, 'build').querySelector('.file_tree_name')!;
    expect(name.textContent).toBe('build/');
    expect(name.getAttribute('dir')).toBe('ltr');

    const single = checkItem(dialog, 'single_root_directory');
    expect(single.querySelector('.package_checks_text')?.textContent).toBe('Everything is inside the folder build. Putting its contents at the top level is recommended.');
    expect([...single.querySelectorAll('.package_checks_path')].map((element) => [element.textContent, element.getAttribute('dir')])).toEqual([['build', 'ltr']]);
    const options = [...checkItem(dialog, 'entrypoint_not_set').querySelectorAll('option')];
    expect(options.map((option) => [option.textContent, option.getAttribute('dir')])).toContainEqual(['build/game.exe', 'ltr']);

    // The start file's sentence: path, extension ('.zip', not 'zip.') and tags each isolated.
    fireEvent.click(within(checkItem(dialog, 'single_root_directory')).getByRole('button', { name: 'Replace the folder with its contents' }));
    await waitFor(() => expect(h.rowPaths(dialog)).toEqual(['game.exe', 'setup.zip']));
    fireEvent.click(h.rowAction(dialog, 'setup.zip', 'Make start file'));
    await waitFor(() => expect(checkItem(dialog, 'archive_entrypoint')).not.toBeNull());
    const archive = checkItem(dialog, 'archive_entrypoint');
    expect(archive.querySelector('.package_checks_text')?.textContent).toBe('The start file setup.zip is an archive (.zip). Upload its contents instead.');
    expect([...archive.querySelectorAll('.package_checks_path')].map((element) => [element.textContent, element.getAttribute('dir')])).toEqual([
      ['setup.zip', 'ltr'],
      ['.zip', 'ltr'],
    ]);

    // A refused edit names the path isolated too.
    await act(async () => {
      fireEvent.drop(within(dialog).getByTestId('file-tree'), { dataTransfer: h.dropData({ 'game.exe': 'MZ again' }) });
    });
    await waitFor(() => expect(within(dialog).getByTestId('new-package-edit-problem').textContent).toBe('game.exe is already in the package.'));
    expect(within(dialog).getByTestId('new-package-edit-problem').querySelector('bdi')?.getAttribute('dir')).toBe('ltr');
  });
});
