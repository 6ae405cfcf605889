import { useDom } from './setup.ts';
import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 29 (a new user's walk): in the New version dialog a title already taken was only refused by
 * the server when Publish created the version, after the new package had been uploaded: a package
 * in no version was left behind. The title is checked (the server's rule and the project's version
 * titles) before any upload starts, inline at the title; the server's refusal still shows there when
 * another version took the title meanwhile.
 */
useDom();
setDefaultTimeout(180_000);
const { act, fireEvent, within } = await import('@testing-library/react');
const { openApp, until } = await import('./app-harness.tsx');
const { setBearerToken } = await import('../../src/client/lib/api.ts');
const { resetForEachTest } = await import('./client-harness.tsx');

let server: TestServer;
let team: Team;
let branch: { id: string };

async function api<T>(method: string, path: string, json?: unknown): Promise<T> {
  const response = await server.fetch(`/api/projects/${team.project.id}${path}`, { method, token: team.owner.token, json });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}
const versionTitles = async () => (await api<{ title: string }[]>('GET', '/versions')).map((version) => version.title).sort();
const packageCount = async () => (await api<unknown[]>('GET', '/packages')).length;

beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server);
  branch = await api('POST', '/branches', { title: 'main' });
  const version = await api<{ id: string }>('POST', '/versions', { title: '1.0.0' });
  await api('POST', `/branches/${branch.id}/versions/${version.id}`);
});
resetForEachTest(() => server);

const openDialogs = () => [...document.querySelectorAll<HTMLDialogElement>('dialog[open]')];

async function openPublishDialog(): Promise<{ dialog: HTMLElement; title: HTMLInputElement }> {
  openApp(`/projects/${team.project.id}/branches/${branch.id}`, team.developer.token);
  let button: HTMLElement | undefined;
  await until(() => {
    button = [...document.querySelectorAll<HTMLElement>('button')].find((item) => item.textContent === 'Publish new version');
    expect(button).toBeDefined();
  });
  act(() => void fireEvent.click(button!));
  await until(() => expect(openDialogs()).toHaveLength(1));
  const dialog = openDialogs()[0]!;
  const title = within(dialog).getByLabelText('Title') as HTMLInputElement;
  // Its suggestion follows the latest version, and is free.
  await until(() => expect(title.value).toBe('1.0.1'));
  return { dialog, title };
}

const type = (input: HTMLInputElement, value: string) => act(() => void fireEvent.change(input, { target: { value } }));
const problemOf = (input: HTMLInputElement) => (input.getAttribute('aria-invalid') ? document.getElementById(`${input.id}-problem`)?.textContent : undefined);
const button = (dialog: HTMLElement, name: string) => within(dialog).getByRole('button', { name });

describe('the New version dialog checks the title before anything is uploaded', () => {
  test('a title another version has is said at once, and New package opens nothing until it is changed', async () => {
    const before = await packageCount();
    const { dialog, title } = await openPublishDialog();
    expect(problemOf(title)).toBeUndefined();
    type(title, '1.0.0');
    expect(problemOf(title)).toBe('A version with this title already exists.');
    // Spaces and invisible formatting do not make it another title (the server's rule).
    type(title, ' 1.0.0\u200b ');
    expect(problemOf(title)).toBe('A version with this title already exists.');

    act(() => void fireEvent.click(button(dialog, 'New package')));
    expect(openDialogs()).toHaveLength(1);
    expect(problemOf(title)).toBe('A version with this title already exists.');
    expect(document.activeElement).toBe(title);

    type(title, '2.0');
    expect(problemOf(title)).toBeUndefined();
    act(() => void fireEvent.click(button(dialog, 'New package')));
    await until(() => expect(openDialogs().some((open) => open.classList.contains('new_package_dialog'))).toBe(true));
    const packageDialog = openDialogs().find((open) => open.classList.contains('new_package_dialog'))!;
    act(() => void fireEvent.click(button(packageDialog, 'Cancel')));
    await until(() => expect(openDialogs()).toHaveLength(1));
    expect(await packageCount()).toBe(before);
  });

  test('an empty title or one with control characters stops New package too, with the rule it breaks', async () => {
    const { dialog, title } = await openPublishDialog();
    type(title, '   ');
    act(() => void fireEvent.click(button(dialog, 'New package')));
    expect(problemOf(title)).toBe('This field is required.');
    type(title, 'beta\u0007');
    act(() => void fireEvent.click(button(dialog, 'New package')));
    expect(problemOf(title)).toBe('The title cannot contain control characters.');
    expect(openDialogs()).toHaveLength(1);
  });

  test('Publish with a taken title is refused at the title before any request; a title taken meanwhile is the server\'s refusal, shown there too', async () => {
    const { dialog, title } = await openPublishDialog();
    type(title, '1.0.0');
    act(() => void fireEvent.click(button(dialog, 'Publish')));
    expect(problemOf(title)).toBe('A version with this title already exists.');
    expect(await versionTitles()).toEqual(['1.0.0']);

    // Another member takes 1.0.1 while the dialog is open (the list it knows is older).
    await api('POST', '/versions', { title: '1.0.1' });
    type(title, '1.0.1');
    expect(problemOf(title)).toBeUndefined();
    act(() => void fireEvent.click(button(dialog, 'Publish')));
    await until(() => expect(problemOf(title)).toBe('A version with this title already exists.'));
    expect(openDialogs()).toHaveLength(1);
    expect(await versionTitles()).toEqual(['1.0.0', '1.0.1']);

    type(title, '1.0.2');
    act(() => void fireEvent.click(button(dialog, 'Publish')));
    await until(() => expect(openDialogs()).toHaveLength(0));
    expect(await versionTitles()).toEqual(['1.0.0', '1.0.1', '1.0.2']);
  });
});
