import { useDom } from './setup.ts';
import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { uploadPackage } from '../support/packages.ts';
import { createVersion, makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 29 against the real server: the project's packages screen (a table of every package, newest
 * first: title to its page, tags, the versions it is in as links, size, upload date, start file, when a
 * package in no version goes; a search; Delete with confirmation only for those in no version, only for
 * who may delete) and the add-existing dialog (rows told apart by versions, date and start file, newest
 * first, searchable; Add takes what is selected and shown).
 */
useDom();
setDefaultTimeout(180_000);
const { act, fireEvent, within } = await import('@testing-library/react');
const { until, openApp } = await import('./app-harness.tsx');
const { setBearerToken } = await import('../../src/client/lib/api.ts');
const { openOnClick, resetForEachTest } = await import('./client-harness.tsx');
const { AddExistingPackageDialog } = await import('../../src/client/dialogs/add-existing-package-dialog.tsx');
const { formatDate } = await import('../../src/shared/format/date.ts');

let server: TestServer;
let team: Team;
// Three builds with one name (the "Linux x86 64-bit" six times), told apart by version and start file.
let linuxOld: Package;
let linuxNew: Package;
let web: Package;
let linuxLoose: Package;
let v1: { id: string; title: string };
let v2: { id: string; title: string };
const linuxTags = ['os:linux', 'arch:x86', 'bits:64'];

beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server, 'ada_dev');
  const upload = (name: string, tags: string[], content: string) => uploadPackage(server, team.developer, team.project.id, { [name]: content }, { tags, entrypoint: [name] });
  linuxOld = await upload('run-old.sh', linuxTags, 'old');
  linuxNew = await upload('run-new.sh', linuxTags, 'new build');
  web = await upload('index.html', ['os:web'], '<p>web</p>');
  linuxLoose = await upload('run-loose.sh', linuxTags, 'left in no version');
  v1 = await createVersion(server, team.developer, team.project, '1.0', [linuxOld.id]);
  v2 = await createVersion(server, team.developer, team.project, '2.0', [linuxNew.id, web.id, linuxOld.id]);
}, 60_000);
resetForEachTest(() => server);

const main = () => document.querySelector('main#content') as HTMLElement;
const rows = () => [...document.querySelectorAll<HTMLTableRowElement>('.packages_table tbody tr')];
const rowIds = () => rows().map((row) => row.getAttribute('data-package-id'));
const rowOf = (id: string) => document.querySelector<HTMLTableRowElement>(`.packages_table tr[data-package-id="${id}"]`)!;
const cell = (row: HTMLElement, column: number) => row.querySelectorAll('td')[column]!;
const type = (input: HTMLElement, value: string) => act(() => void fireEvent.change(input, { target: { value } }));

describe('the packages screen', () => {
  test('the overview links to it; a table of every package, newest first, with versions as links, size, date, start file', async () => {
    setBearerToken(team.tester.token);
    openApp(`/projects/${team.project.id}`);
    await until(() => expect(within(main()).getByRole('link', { name: 'Packages' }).getAttribute('href')).toBe(`/projects/${team.project.id}/packages`));
    fireEvent.click(within(main()).getByRole('link', { name: 'Packages' }));
    await until(() => expect(rows()).toHaveLength(4));
    expect(main().className).toContain('page_packages');
    expect(within(main()).getByRole('heading', { level: 1 }).textContent).toBe(`Packages of ${team.project.title}`);
    expect(rowIds()).toEqual([linuxLoose.id, web.id, linuxNew.id, linuxOld.id]);
    expect(document.querySelector('.packages_status')?.textContent).toBe('Packages found: 4');
    const headings = [...document.querySelectorAll('.packages_table thead th')].map((th) => th.textContent);
    expect(headings).toEqual(['Package', 'Tags', 'Versions', 'Size', 'Uploaded', 'Start file']);

    const old = rowOf(linuxOld.id);
    const title = within(cell(old, 0)).getByRole('link', { name: 'Linux x86 64-bit' });
    expect(title.getAttribute('href')).toBe(`/projects/${team.project.id}/packages/${linuxOld.id}`);
    expect([...cell(old, 1).querySelectorAll('li')].map((li) => li.getAttribute('data-tag'))).toEqual(linuxTags);
    // Versions newest first, each a link to its page.
    expect(within(cell(old, 2)).getAllByRole('link').map((a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['2.0', `/projects/${team.project.id}/versions/${v2.id}`],
      ['1.0', `/projects/${team.project.id}/versions/${v1.id}`],
    ]);
    expect(cell(old, 3).querySelector('bdi')?.getAttribute('data-bytes')).toBe(String(linuxOld.size));
    const time = cell(old, 4).querySelector('time')!;
    expect(time.getAttribute('datetime')).toBe(linuxOld.created);
    expect(time.textContent).toBe(formatDate(linuxOld.created, 'en'));
    expect(cell(old, 5).textContent).toBe('run-old.sh');
    // Each cell names its column for the narrow layout.
    expect(cell(old, 2).getAttribute('data-label')).toBe('Versions');

    // The one in no version says so, and when it goes (7 days after its last change, the default).
    const loose = rowOf(linuxLoose.id);
    expect(cell(loose, 2).textContent).toBe('In no version');
    const deletion = cell(loose, 4).querySelector('.packages_deletion')!;
    expect(deletion.getAttribute('data-deletion')).toBe(new Date(Date.parse(linuxLoose.updated) + 7 * 86_400_000).toISOString());
    expect(deletion.textContent).toBe(`Deleted automatically on ${formatDate(deletion.getAttribute('data-deletion')!, 'en')}`);
    expect(cell(old, 4).querySelector('.packages_deletion')).toBeNull();
    // A tester may not delete: no column, no button.
    expect(within(main()).queryByRole('button', { name: /^Delete/ })).toBeNull();
  });

  test('the search filters by title, tag, start file and version; Escape and "Clear the search" clear it', async () => {
    setBearerToken(team.tester.token);
    openApp(`/projects/${team.project.id}/packages`);
    await until(() => expect(rows()).toHaveLength(4));
    const search = within(main()).getByRole('searchbox', { name: 'Search packages' });
    expect(document.getElementById(search.getAttribute('aria-describedby')!)?.textContent).toBe('Title, tag, start file or version');
    type(search, 'web');
    expect(rowIds()).toEqual([web.id]);
    type(search, 'LINUX');
    expect(rowIds()).toEqual([linuxLoose.id, linuxNew.id, linuxOld.id]);
    type(search, 'run-new');
    expect(rowIds()).toEqual([linuxNew.id]);
    type(search, '1.0');
    expect(rowIds()).toEqual([linuxOld.id]);
    type(search, 'linux 2.0');
    expect(rowIds()).toEqual([linuxNew.id, linuxOld.id]);
    expect(document.querySelector('.packages_status')?.textContent).toBe('Packages found: 2');
    act(() => void fireEvent.keyDown(search, { key: 'Escape' }));
    expect(rowIds()).toHaveLength(4);
    type(search, 'nothing like it');
    expect(rows()).toHaveLength(0);
    expect(main().textContent).toContain('No package matches “nothing like it”.');
    fireEvent.click(within(main()).getByRole('button', { name: 'Clear the search' }));
    expect(rowIds()).toHaveLength(4);
  });

  test('an admin deletes a package in no version after confirming; packages in a version have no Delete', async () => {
    const spare = await uploadPackage(server, team.developer, team.project.id, { 'spare.txt': 'spare' }, { title: 'Spare build' });
    setBearerToken(team.admin.token);
    openApp(`/projects/${team.project.id}/packages`);
    await until(() => expect(rows()).toHaveLength(5));
    const deleteButtons = within(main()).getAllByRole('button', { name: /^Delete / });
    expect(deleteButtons.map((button) => button.getAttribute('aria-label'))).toEqual(['Delete Spare build', 'Delete Linux x86 64-bit']);
    expect(within(rowOf(linuxOld.id)).queryByRole('button')).toBeNull();

    // Cancel keeps it.
    fireEvent.click(within(rowOf(spare.id)).getByRole('button', { name: 'Delete Spare build' }));
    let dialog = await within(document.body).findByRole('alertdialog', { name: 'Delete package' });
    expect(dialog.textContent).toContain('Delete the package “Spare build”?');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await until(() => expect(within(document.body).queryByRole('alertdialog')).toBeNull());
    expect((await server.fetch(`/api/projects/${team.project.id}/packages/${spare.id}`, { token: team.admin.token })).status).toBe(200);

    fireEvent.click(within(rowOf(spare.id)).getByRole('button', { name: 'Delete Spare build' }));
    dialog = await within(document.body).findByRole('alertdialog', { name: 'Delete package' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await until(() => expect(rowIds()).not.toContain(spare.id));
    expect(rows()).toHaveLength(4);
    expect((await server.fetch(`/api/projects/${team.project.id}/packages/${spare.id}`, { token: team.admin.token })).status).toBe(404);
  });

  test('a package a version took meanwhile is refused with the in-use message and stays listed', async () => {
    const raced = await uploadPackage(server, team.developer, team.project.id, { 'raced.txt': 'raced' }, { title: 'Raced build' });
    setBearerToken(team.admin.token);
    openApp(`/projects/${team.project.id}/packages`);
    await until(() => expect(rowIds()).toContain(raced.id));
    await createVersion(server, team.developer, team.project, '2.1', [raced.id]);
    fireEvent.click(within(rowOf(raced.id)).getByRole('button', { name: 'Delete Raced build' }));
    const confirm = await within(document.body).findByRole('alertdialog', { name: 'Delete package' });
    fireEvent.click(within(confirm).getByRole('button', { name: 'Delete' }));
    const refused = await within(document.body).findByRole('dialog', { name: 'The package is in use' });
    expect(refused.querySelector('[data-error-code="not_empty"]')).not.toBeNull();
    fireEvent.click(within(refused).getByRole('button', { name: 'OK' }));
    // Refreshed: it is listed with its new version and no Delete.
    await until(() => expect(within(cell(rowOf(raced.id), 2)).queryByRole('link', { name: '2.1' })).not.toBeNull());
    expect(within(rowOf(raced.id)).queryByRole('button')).toBeNull();
  });

  test('a package page reached from the project has "Packages" in its trail', async () => {
    setBearerToken(team.tester.token);
    openApp(`/projects/${team.project.id}/packages/${linuxLoose.id}`);
    await until(() => expect(within(main()).getByRole('heading', { level: 1 }).textContent).toBe('Linux x86 64-bit'));
    const trail = within(main()).getByRole('navigation', { name: 'Breadcrumb' });
    expect(within(trail).getByRole('link', { name: 'Packages' }).getAttribute('href')).toBe(`/projects/${team.project.id}/packages`);
  });
});

/** The real dialog in its providers, against the real server; resolves with what it closed with. */
async function openAddExisting(exclude: string[] = []) {
  const result = openOnClick((dialogs) => dialogs.open<Package[] | null>((close) => <AddExistingPackageDialog projectId={team.project.id} exclude={exclude} onClose={close} />));
  const dialog = await within(document.body).findByRole('dialog', { name: 'Add existing packages' });
  await until(() => expect(within(dialog).getAllByRole('option').length).toBeGreaterThan(0));
  return { dialog, result: () => result };
}

describe('the add-existing dialog', () => {
  const options = (dialog: HTMLElement) => within(dialog).queryAllByRole('option');
  const optionIds = (dialog: HTMLElement) => options(dialog).map((option) => option.getAttribute('data-package-id'));
  const optionOf = (dialog: HTMLElement, id: string) => dialog.querySelector<HTMLElement>(`[role="option"][data-package-id="${id}"]`)!;
  const fact = (option: HTMLElement, name: string) => option.querySelector(`[data-fact="${name}"]`)?.textContent;

  test('rows with one name are told apart by versions, upload date and start file; newest first', async () => {
    setBearerToken(team.developer.token);
    const { dialog } = await openAddExisting([web.id]);
    const ids = optionIds(dialog);
    // Ready packages of the project but the excluded one, newest first (earlier tests' packages are newer).
    expect(ids.slice(-3)).toEqual([linuxLoose.id, linuxNew.id, linuxOld.id]);
    expect(ids).not.toContain(web.id);
    const [loose, fresh, old] = [linuxLoose, linuxNew, linuxOld].map((pkg) => optionOf(dialog, pkg.id));
    for (const option of [loose!, fresh!, old!]) expect(option.querySelector('.add_existing_name')?.textContent).toBe('Linux x86 64-bit');
    expect(fact(loose!, 'versions')).toBe('In no version');
    expect(fact(fresh!, 'versions')).toBe('In 2.0');
    expect(fact(old!, 'versions')).toBe(`In ${new Intl.ListFormat('en', { type: 'unit', style: 'short' }).format(['2.0', '1.0'])}`);
    expect(fact(old!, 'uploaded')).toBe(`Uploaded ${formatDate(linuxOld.created, 'en')}`);
    expect(old!.querySelector('[data-fact="uploaded"] time')?.getAttribute('datetime')).toBe(linuxOld.created);
    expect(fact(loose!, 'start-file')).toBe('Start file run-loose.sh');
    expect(fact(fresh!, 'start-file')).toBe('Start file run-new.sh');
    // Tags as labelled badges, not the raw 'os:linux arch:x86 bits:64'.
    expect([...old!.querySelectorAll('.tag_list li')].map((li) => li.textContent)).not.toContain('os:linux');
    expect(old!.querySelector('.add_existing_size')?.getAttribute('data-bytes')).toBe(String(linuxOld.size));
  });

  test('the search filters by title, tag, start file and version; Add takes the selected rows it shows', async () => {
    setBearerToken(team.developer.token);
    const { dialog, result } = await openAddExisting();
    const search = within(dialog).getByRole('searchbox', { name: 'Search packages' });
    type(search, 'run-new.sh');
    expect(optionIds(dialog)).toEqual([linuxNew.id]);
    type(search, '1.0');
    expect(optionIds(dialog)).toEqual([linuxOld.id]);
    type(search, 'os:web');
    expect(optionIds(dialog)).toEqual([web.id]);
    type(search, 'linux');
    expect(optionIds(dialog).slice(-3)).toEqual([linuxLoose.id, linuxNew.id, linuxOld.id]);

    // Select two of them (Ctrl-click), then narrow the search to one: Add takes only what is shown.
    fireEvent.click(optionOf(dialog, linuxLoose.id));
    fireEvent.click(optionOf(dialog, linuxOld.id), { ctrlKey: true });
    expect(optionOf(dialog, linuxOld.id).getAttribute('aria-selected')).toBe('true');
    type(search, 'no such package');
    expect(options(dialog)).toHaveLength(0);
    expect(dialog.textContent).toContain('No package matches “no such package”.');
    const add = () => [...dialog.querySelectorAll<HTMLButtonElement>('.dialog_actions button')].at(-1)!;
    expect(add().disabled).toBe(true);
    expect(add().textContent).toBe('No packages selected');
    // Escape in the search clears it and keeps the dialog open.
    act(() => void fireEvent.keyDown(search, { key: 'Escape' }));
    expect(dialog.isConnected && (dialog as HTMLDialogElement).open).toBe(true);
    type(search, 'run-old');
    expect(add().disabled).toBe(false);
    fireEvent.click(add());
    const chosen = await result();
    expect(chosen!.map((pkg) => pkg.id)).toEqual([linuxOld.id]);
  });
});
