import { useDom } from './setup.ts';
import { describe, expect, test } from 'bun:test';

/**
 * Issue 29 (a new user's walk): an update (a base package chosen by the tags) did not take over the
 * base's start file, so "No start file is set" showed again for the same build. Once the base's start
 * file is among the new files it is preselected; the developer can still choose another one.
 */
useDom();
const { fireEvent, waitFor, within } = await import('@testing-library/react');
const h = await import('./new-package-harness.tsx');

const linuxBuild = { id: 'base-linux', title: 'Linux build', tags: ['os:linux'], entrypoint: ['bin', 'run.sh'] };
const webBuild = { id: 'base-web', title: 'Web build', tags: ['os:web'], entrypoint: ['index.html'] };
const checkCodes = (dialog: HTMLElement) => [...dialog.querySelectorAll<HTMLElement>('.package_checks_item')].map((item) => item.dataset.code);
const startBadge = (dialog: HTMLElement, path: string) => h.rowOf(dialog, path).querySelector('.badge_accent')?.textContent ?? null;
const takeTagsOf = (dialog: HTMLElement, title: string) =>
  fireEvent.click(within(within(dialog).getByRole('group', { name: 'Same tags as a package of the current version:' })).getByRole('button', { name: title }));

async function pickBuild(dialog: HTMLElement, files: Record<string, string>) {
  await h.pickFiles(
    dialog,
    Object.entries(files).map(([path, content]) => h.makeFile(path.split('/').pop()!, content)),
  );
}

describe('an update takes over its base package\'s start file', () => {
  test('files added after the tags: the base\'s start file is preselected, no "No start file is set"', async () => {
    const opened = await h.openDialog({ basePackages: [linuxBuild, webBuild] });
    const { dialog } = opened;
    takeTagsOf(dialog, 'Linux build');
    await h.pickFiles(dialog, [h.makeFile('run.sh', '#!/bin/sh\necho 2\n', 'build/bin/run.sh'), h.makeFile('data.pak', 'data', 'build/data.pak')], true);
    fireEvent.click(within(dialog.querySelector<HTMLElement>('.package_checks_item[data-code="single_root_directory"]')!).getByRole('button', { name: 'Replace the folder with its contents' }));
    await waitFor(() => expect(h.rowPaths(dialog)).toContain('bin'));
    await waitFor(() => expect(checkCodes(dialog)).not.toContain('entrypoint_not_set'));
    expect(checkCodes(dialog)).not.toContain('entrypoint_missing');

    await h.waitForReady(dialog);
    await waitFor(() => expect(h.createButton(dialog).disabled).toBe(false));
    fireEvent.click(h.createButton(dialog));
    const draft = await opened.result;
    expect(draft!.tree.entrypoint).toEqual(['bin', 'run.sh']);
    expect(draft!.basePackage).toBe('base-linux');
  });

  test('the developer can choose another start file, and it stays', async () => {
    const opened = await h.openDialog({ basePackages: [linuxBuild, webBuild] });
    const { dialog } = opened;
    await pickBuild(dialog, { 'index.html': '<p>v2</p>', 'other.html': '<p>other</p>' });
    await waitFor(() => expect(h.rowPaths(dialog)).toEqual(['index.html', 'other.html']));
    // No base yet: nothing is chosen for the developer.
    expect(checkCodes(dialog)).toContain('entrypoint_not_set');
    takeTagsOf(dialog, 'Web build');
    await waitFor(() => expect(startBadge(dialog, 'index.html')).toBe('Start file'));
    expect(checkCodes(dialog)).not.toContain('entrypoint_not_set');

    fireEvent.click(h.rowAction(dialog, 'other.html', 'Make start file'));
    await waitFor(() => expect(startBadge(dialog, 'other.html')).toBe('Start file'));
    expect(startBadge(dialog, 'index.html')).toBeNull();
    // More files (another revision) do not take the developer's choice back.
    await pickBuild(dialog, { 'extra.txt': 'extra' });
    await waitFor(() => expect(h.rowPaths(dialog)).toContain('extra.txt'));
    expect(startBadge(dialog, 'other.html')).toBe('Start file');

    await h.waitForReady(dialog);
    await waitFor(() => expect(h.createButton(dialog).disabled).toBe(false));
    fireEvent.click(h.createButton(dialog));
    expect((await opened.result)!.tree.entrypoint).toEqual(['other.html']);
  });

  test("a start file preselected for one base gives way to the next base's when the tags change", async () => {
    const flatLinux = { id: 'base-flat', title: 'Flat Linux build', tags: ['os:linux'], entrypoint: ['run.sh'] };
    const opened = await h.openDialog({ basePackages: [flatLinux, webBuild] });
    const { dialog } = opened;
    await pickBuild(dialog, { 'run.sh': '#!/bin/sh\n', 'index.html': '<p>v2</p>' });
    await waitFor(() => expect(h.rowPaths(dialog)).toEqual(['index.html', 'run.sh']));
    takeTagsOf(dialog, 'Flat Linux build');
    await waitFor(() => expect(startBadge(dialog, 'run.sh')).toBe('Start file'));
    takeTagsOf(dialog, 'Web build');
    await waitFor(() => expect(startBadge(dialog, 'index.html')).toBe('Start file'));
    expect(startBadge(dialog, 'run.sh')).toBeNull();
    await h.waitForReady(dialog);
    await waitFor(() => expect(h.createButton(dialog).disabled).toBe(false));
    fireEvent.click(h.createButton(dialog));
    expect((await opened.result)!).toMatchObject({ basePackage: 'base-web', tree: { entrypoint: ['index.html'] } });
  });

  test("a base whose start file is not among the new files sets nothing", async () => {
    const { dialog } = await h.openDialog({ basePackages: [linuxBuild] });
    takeTagsOf(dialog, 'Linux build');
    await pickBuild(dialog, { 'game.x86_64': 'elf-ish', 'readme.txt': 'hi' });
    await waitFor(() => expect(h.rowPaths(dialog)).toEqual(['game.x86_64', 'readme.txt']));
    await waitFor(() => expect(checkCodes(dialog)).toContain('entrypoint_not_set'));
    expect(startBadge(dialog, 'game.x86_64')).toBeNull();
  });
});
