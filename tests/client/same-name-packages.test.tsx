import { useDom } from './setup.ts';
import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { uploadPackage } from '../support/packages.ts';
import { createVersion, makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 29 (a new user's walk): builds for one platform share a name ("Linux x86 64-bit"), and the
 * package page's Packages sidebar and the New version dialog's package list showed identical rows. Each
 * row now carries a secondary line: the versions it is in, its upload date, its size, its start file.
 */
useDom();
setDefaultTimeout(180_000);
const { fireEvent, render, within } = await import('@testing-library/react');
const { until, openApp } = await import('./app-harness.tsx');
const { setBearerToken } = await import('../../src/client/lib/api.ts');
const { Providers, resetForEachTest } = await import('./client-harness.tsx');
const { VersionUploadList } = await import('../../src/client/dialogs/new-version/version-upload-list.tsx');
const { formatDate } = await import('../../src/shared/format/date.ts');
const { formatSize } = await import('../../src/shared/format/size.ts');

let server: TestServer;
let team: Team;
let linuxOld: Package;
let linuxNew: Package;
let linuxLoose: Package;
let v2: { id: string; title: string };
const linuxTags = ['os:linux', 'arch:x86', 'bits:64'];

beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server, 'ada_dev');
  const upload = (name: string, content: string) => uploadPackage(server, team.developer, team.project.id, { [name]: content }, { tags: linuxTags, entrypoint: [name] });
  linuxOld = await upload('run-old.sh', 'old');
  linuxNew = await upload('run-new.sh', 'a newer build');
  linuxLoose = await upload('run-loose.sh', 'left in no version at all');
  await createVersion(server, team.developer, team.project, '1.0', [linuxOld.id]);
  v2 = await createVersion(server, team.developer, team.project, '2.0', [linuxNew.id, linuxOld.id]);
}, 60_000);
resetForEachTest(() => server);

const fact = (row: Element, name: string) => row.querySelector(`[data-fact="${name}"]`)?.textContent;
const list = (names: string[]) => new Intl.ListFormat('en', { type: 'unit', style: 'short' }).format(names);

describe("the package page's Packages sidebar", () => {
  const sidebarRows = () => {
    const nav = [...document.querySelectorAll<HTMLElement>('nav.sidebar_nav')].find((element) => element.querySelector('h2')?.textContent === 'Packages');
    return nav ? [...nav.querySelectorAll<HTMLAnchorElement>('a.sidebar_link')] : [];
  };
  const rowOf = (id: string) => sidebarRows().find((link) => link.getAttribute('href')?.endsWith(`/packages/${id}`))!;

  test('reached from the project: rows of one name say the versions each is in and its upload date', async () => {
    setBearerToken(team.tester.token);
    openApp(`/projects/${team.project.id}/packages/${linuxLoose.id}`);
    await until(() => expect(sidebarRows()).toHaveLength(3));
    for (const row of sidebarRows()) expect(row.querySelector('bdi')?.textContent).toBe('Linux x86 64-bit');
    expect(fact(rowOf(linuxLoose.id), 'versions')).toBe('In no version');
    expect(fact(rowOf(linuxNew.id), 'versions')).toBe('In 2.0');
    expect(fact(rowOf(linuxOld.id), 'versions')).toBe(`In ${list(['2.0', '1.0'])}`);
    expect(fact(rowOf(linuxOld.id), 'uploaded')).toBe(`Uploaded ${formatDate(linuxOld.created, 'en')}`);
    expect(rowOf(linuxOld.id).querySelector('[data-fact="uploaded"] time')?.getAttribute('datetime')).toBe(linuxOld.created);
    // Every row reads differently.
    expect(new Set(sidebarRows().map((row) => row.textContent)).size).toBe(3);
    expect(rowOf(linuxLoose.id).getAttribute('aria-current')).toBe('page');
  });

  test('reached through a version: its packages say their upload date and size', async () => {
    setBearerToken(team.tester.token);
    openApp(`/projects/${team.project.id}/versions/${v2.id}/packages/${linuxNew.id}`);
    await until(() => expect(sidebarRows()).toHaveLength(2));
    expect(fact(rowOf(linuxNew.id), 'size')).toBe(formatSize(linuxNew.size!, 'en'));
    expect(fact(rowOf(linuxOld.id), 'size')).toBe(formatSize(linuxOld.size!, 'en'));
    expect(fact(rowOf(linuxOld.id), 'uploaded')).toBe(`Uploaded ${formatDate(linuxOld.created, 'en')}`);
    expect(fact(rowOf(linuxOld.id), 'versions')).toBeUndefined();
    expect(new Set(sidebarRows().map((row) => row.textContent)).size).toBe(2);
  });
});

describe("the New version dialog's package list", () => {
  test('existing packages of one name are cards with their versions, upload date, size and start file', async () => {
    setBearerToken(team.developer.token);
    let reported: string[] = [];
    const view = render(
      <Providers>
        <VersionUploadList projectId={team.project.id} maxSize={null} onChange={(packages) => (reported = packages)} />
      </Providers>,
    );
    fireEvent.click(within(view.container).getByRole('button', { name: 'Add existing package' }));
    const dialog = await within(document.body).findByRole('dialog', { name: 'Add existing packages' });
    await until(() => expect(within(dialog).getAllByRole('option')).toHaveLength(3));
    const option = (id: string) => dialog.querySelector<HTMLElement>(`[role="option"][data-package-id="${id}"]`)!;
    fireEvent.click(option(linuxOld.id));
    fireEvent.click(option(linuxLoose.id), { ctrlKey: true });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add' }));

    const cards = () => [...view.container.querySelectorAll<HTMLElement>('.upload_item')];
    await until(() => expect(cards()).toHaveLength(2));
    expect(reported.sort()).toEqual([linuxOld.id, linuxLoose.id].sort());
    const [first, second] = cards() as [HTMLElement, HTMLElement];
    for (const card of [first, second]) {
      expect(card.querySelector('.upload_title')?.textContent).toBe('Linux x86 64-bit');
      expect(card.querySelector('.upload_status_text')?.textContent).toBe('Existing package');
    }
    const old = cards().find((card) => fact(card, 'start-file') === 'Start file run-old.sh')!;
    const loose = cards().find((card) => fact(card, 'start-file') === 'Start file run-loose.sh')!;
    expect(fact(old, 'versions')).toBe(`In ${list(['2.0', '1.0'])}`);
    expect(fact(loose, 'versions')).toBe('In no version');
    expect(fact(old, 'size')).toBe(formatSize(linuxOld.size!, 'en'));
    expect(fact(loose, 'size')).toBe(formatSize(linuxLoose.size!, 'en'));
    expect(fact(old, 'uploaded')).toBe(`Uploaded ${formatDate(linuxOld.created, 'en')}`);
    // The start file's path is isolated left-to-right (RTL pages).
    expect(old.querySelector('[data-fact="start-file"] bdi')?.getAttribute('dir')).toBe('ltr');
    expect(first.textContent).not.toBe(second.textContent);
  });
});
