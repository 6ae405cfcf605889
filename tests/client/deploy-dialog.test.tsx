import { useDom } from './setup.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { itchAccount, itchKey } from '../api/deploys-support.ts';
import { startFakeItchApi, type FakeItchApi } from '../support/fake-itch/api.ts';
import { installFakeButler, type FakeButler } from '../support/fake-itch/index.ts';
import { uploadPackage } from '../support/packages.ts';
import { makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 18, the version page's deploy to site (spec §2 version page and dialog, §4 deploy job states, §5
 * refusals and channel rule): who sees the action, Deploy disabled with no site, the two §5 sentences word
 * for word, butler missing said before the start, two packages to two channels followed to succeeded with
 * their itch.io build and butler's output, a failing butler, and a reload reopening the progress. The real
 * server answers, with the fake itch.io API and the fake butler behind ITCH_API_URL and BUTLER_PATH.
 */
useDom();
// Each test drives whole screens and real deploy jobs: more than the default 5 s on a busy machine.
setDefaultTimeout(180_000);
const { act, cleanup, fireEvent, within } = await import('@testing-library/react');
const { openApp, until } = await import('./app-harness.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');
const { setLanguage } = await import('../../src/client/lib/i18n/index.ts');

type World = { server: TestServer; team: Team; siteId: string; versionId: string; packages: { linux: string; windows: string } };

let itch: FakeItchApi;
let butler: FakeButler;
let main: World;

/** A server's team with an itch.io credential, one deploy site and a version of two ready packages (linux, windows). */
async function makeWorld(server: TestServer, developer: string): Promise<World> {
  const team = await makeTeam(server);
  const key = itchKey();
  itch.setKey(key, itchAccount(developer, ['game']));
  const credential = await server.fetch('/api/users/me/deploy-credentials', { method: 'POST', token: team.owner.token, json: { title: 'itch key', provider: 'itch', key } });
  if (credential.status !== 200) throw new Error(`credential: ${credential.status} ${await credential.text()}`);
  const { id: credentialId } = (await credential.json()) as { id: string };
  const site = await server.fetch(`/api/projects/${team.project.id}/deploy-sites`, { method: 'POST', token: team.owner.token, json: { credential: credentialId, site: `${developer}/game` } });
  if (site.status !== 200) throw new Error(`site: ${site.status} ${await site.text()}`);
  const { id: siteId } = (await site.json()) as { id: string };
  const linux = await uploadPackage(server, team.owner, team.project.id, { 'game.sh': '#!/bin/sh\necho linux\n', 'data/level.txt': 'level one' }, { tags: ['os:linux'], title: 'Linux build', entrypoint: ['game.sh'] });
  const windows = await uploadPackage(server, team.owner, team.project.id, { 'game.exe': 'MZ windows', 'data/level.txt': 'level one' }, { tags: ['os:windows'], title: 'Windows build', entrypoint: ['game.exe'] });
  const version = await server.fetch(`/api/projects/${team.project.id}/versions`, { method: 'POST', token: team.owner.token, json: { title: '1.4.0', description: '', packages: [linux.id, windows.id] } });
  if (version.status !== 200) throw new Error(`version: ${version.status} ${await version.text()}`);
  const { id: versionId } = (await version.json()) as { id: string };
  return { server, team, siteId, versionId, packages: { linux: linux.id, windows: windows.id } };
}

beforeAll(async () => {
  itch = startFakeItchApi({ keys: {} });
  butler = installFakeButler({ apiUrl: itch.url, steps: 4, stepMs: 50 });
  const server = await startTestServer({ ITCH_API_URL: itch.url, BUTLER_PATH: butler.path, BUTLER_IDLE_TIMEOUT: '5' });
  main = await makeWorld(server, 'teamdev');
}, 90_000);
afterAll(async () => {
  cleanup();
  await main?.server.stop();
  await itch?.stop();
  butler?.cleanup();
});
beforeEach(() => {
  setBearerToken(null);
  setApiOrigin(main.server.url);
  setLanguage('en');
  sessionStorage.clear();
});

const versionPath = (world: World) => `/projects/${world.team.project.id}/versions/${world.versionId}`;


async function appeared(root: ParentNode, selector: string, timeout?: number): Promise<HTMLElement> {
  let found: HTMLElement | null = null;
  await until(() => {
    found = root.querySelector<HTMLElement>(selector);
    expect(found).not.toBeNull();
  }, timeout);
  return found!;
}
const dialogClosed = () => until(() => expect(document.querySelectorAll('dialog').length).toBe(0));
const typeInto = (input: HTMLElement, value: string) => act(() => fireEvent.change(input, { target: { value } }));
const click = (element: HTMLElement) => act(() => fireEvent.click(element));

/** The version page's toolbar once the version is shown (null when the caller may do nothing there). */
async function versionToolbar(): Promise<HTMLElement | null> {
  await appeared(document, 'main h1');
  // Its packages (or the empty state): the page has settled, the toolbar included.
  await appeared(document, '[data-testid="version-packages"], main .state_empty');
  return document.querySelector<HTMLElement>('.version_actions');
}

/** Opens the deploy to site dialog from the version page and waits for its form (or its no-sites notice). */
async function openDeployDialog(): Promise<HTMLElement> {
  const toolbar = await versionToolbar();
  expect(toolbar).not.toBeNull();
  click(within(toolbar!).getByRole('button', { name: 'Deploy to site' }));
  const dialog = await appeared(document, 'dialog.deploy_dialog');
  expect(within(dialog).getByRole('heading').textContent).toBe('Deploy to site');
  await until(() => expect(dialog.querySelector('select[name="site"], [data-testid="deploy-no-sites"]')).not.toBeNull());
  return dialog;
}

const deployButton = (dialog: HTMLElement) => within(dialog).getByRole('button', { name: 'Deploy' }) as HTMLButtonElement;
const packageRow = (dialog: HTMLElement, id: string) => dialog.querySelector<HTMLElement>(`li.deploy_package[data-package-id="${id}"]`)!;
const channelInput = (dialog: HTMLElement, id: string) => within(packageRow(dialog, id)).getByLabelText('Channel') as HTMLInputElement;
const includeBox = (dialog: HTMLElement, id: string) => packageRow(dialog, id).querySelector<HTMLInputElement>('input[type="checkbox"]')!;

async function chooseSite(dialog: HTMLElement, siteId: string) {
  const select = (await appeared(dialog, 'select[name="site"]')) as HTMLSelectElement;
  await act(() => fireEvent.change(select, { target: { value: siteId } }));
  expect(select.value).toBe(siteId);
}

/** The progress rows of the dialog, by package title. */
function progressRows(dialog: HTMLElement): Map<string, HTMLElement> {
  const rows = [...dialog.querySelectorAll<HTMLElement>('[data-testid="deploy-progress"] .deploy_job')];
  return new Map(rows.map((row) => [row.querySelector('.deploy_job_title')!.textContent!, row]));
}

describe('who may deploy', () => {
  test('a developer and a tester have no Deploy to site action; an admin has', async () => {
    openApp(versionPath(main), main.team.developer.token);
    const toolbar = await versionToolbar();
    expect(toolbar).not.toBeNull();
    expect(within(toolbar!).queryByRole('button', { name: 'Deploy to site' })).toBeNull();
    expect(within(toolbar!).getByRole('button', { name: 'Edit' })).toBeTruthy();

    openApp(versionPath(main), main.team.tester.token);
    expect(await versionToolbar()).toBeNull();

    openApp(versionPath(main), main.team.admin.token);
    const adminToolbar = await versionToolbar();
    expect(within(adminToolbar!).getByRole('button', { name: 'Deploy to site' })).toBeTruthy();
  });

  test('a project without deploy sites says so and links to its manage page', async () => {
    const bare = await makeTeam(main.server);
    const version = await main.server.fetch(`/api/projects/${bare.project.id}/versions`, { method: 'POST', token: bare.owner.token, json: { title: '0.1', description: '' } });
    const { id } = (await version.json()) as { id: string };
    openApp(`/projects/${bare.project.id}/versions/${id}`, bare.owner.token);
    const dialog = await openDeployDialog();
    const notice = await appeared(dialog, '[data-testid="deploy-no-sites"]');
    expect(notice.textContent).toBe('This project has no deploy sites yet. Add one on the manage page.');
    expect(within(notice).getByRole('link', { name: 'manage page' }).getAttribute('href')).toBe(`/projects/${bare.project.id}/manage`);
    expect(dialog.querySelector('form')).toBeNull();
    click(within(dialog).getByRole('button', { name: 'Close' }));
    await dialogClosed();
  });
});

describe('one cache for the deploy sites', () => {
  test("a site added on the manage page is in the deploy dialog's list at once, without a reload", async () => {
    const team = await makeTeam(main.server);
    const key = itchKey();
    itch.setKey(key, itchAccount('cachedev', ['game']));
    const credential = await main.server.fetch('/api/users/me/deploy-credentials', { method: 'POST', token: team.owner.token, json: { title: 'itch key', provider: 'itch', key } });
    expect(credential.status).toBe(200);
    const version = await main.server.fetch(`/api/projects/${team.project.id}/versions`, { method: 'POST', token: team.owner.token, json: { title: '0.2', description: '' } });
    const { id: versionId } = (await version.json()) as { id: string };
    const path = `/projects/${team.project.id}/versions/${versionId}`;

    // The dialog lists no site (and has read the list: it is in the page's cache now).
    openApp(path, team.owner.token);
    let dialog = await openDeployDialog();
    const notice = await appeared(dialog, '[data-testid="deploy-no-sites"]');
    // Its link goes to the manage page in the same app (no reload) and closes the dialog.
    click(within(notice).getByRole('link', { name: 'manage page' }));
    await dialogClosed();
    expect(location.pathname).toBe(`/projects/${team.project.id}/manage`);

    // The manage page adds a site (deploys.sites.create over tRPC).
    const sites = await appeared(document, 'section[aria-labelledby="manage-deploy"]');
    click(await appeared(sites, 'button.button_primary'));
    const add = await appeared(document, 'dialog.deploy_site_dialog');
    click(await appeared(add, 'input[type="radio"][value="cachedev/game"]'));
    click(within(add).getByRole('button', { name: 'Add' }));
    await dialogClosed();
    await appeared(document, 'li.deploy_site_item');

    // Back on the version page in the same app: the dialog lists the new site.
    await act(() => history.pushState(null, '', path));
    dialog = await openDeployDialog();
    const select = (await appeared(dialog, 'select[name="site"]')) as HTMLSelectElement;
    expect([...select.options].map((option) => option.textContent)).toEqual(['Choose a site', 'cachedev/game (itch.io)']);
    click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await dialogClosed();
  });
});

describe('the form', () => {
  test('Deploy is disabled with no site; the two §5 refusals appear word for word and keep it disabled', async () => {
    openApp(versionPath(main), main.team.owner.token);
    const dialog = await openDeployDialog();
    const select = (await appeared(dialog, 'select[name="site"]')) as HTMLSelectElement;
    expect(within(dialog).getByLabelText('Deploy site')).toBe(select);
    expect(select.value).toBe('');
    expect([...select.options].map((option) => option.textContent)).toEqual(['Choose a site', 'teamdev/game (itch.io)']);
    await appeared(dialog, 'li.deploy_package');
    // Channels default to the §5 rule: tag values after the colon, sorted, joined with '-'.
    expect(channelInput(dialog, main.packages.linux).value).toBe('linux');
    expect(channelInput(dialog, main.packages.windows).value).toBe('windows');
    expect(includeBox(dialog, main.packages.linux).checked).toBe(true);
    expect(deployButton(dialog).disabled).toBe(true);

    await chooseSite(dialog, main.siteId);
    expect(deployButton(dialog).disabled).toBe(false);
    expect(dialog.querySelector('.deploy_site_problem')).toBeNull();

    // No package included.
    click(includeBox(dialog, main.packages.linux));
    click(includeBox(dialog, main.packages.windows));
    expect(dialog.querySelector('.deploy_form_problem')?.textContent).toBe('No packages to deploy.');
    expect(deployButton(dialog).disabled).toBe(true);
    click(includeBox(dialog, main.packages.linux));
    click(includeBox(dialog, main.packages.windows));
    expect(dialog.querySelector('.deploy_form_problem')).toBeNull();
    expect(deployButton(dialog).disabled).toBe(false);

    // Two packages on one channel.
    await typeInto(channelInput(dialog, main.packages.windows), 'linux');
    expect(dialog.querySelector('.deploy_form_problem')?.textContent).toBe('Multiple packages cannot be deployed to a single channel. Currently 2 packages are set to deploy to channel linux.');
    expect(deployButton(dialog).disabled).toBe(true);
    expect(channelInput(dialog, main.packages.windows).getAttribute('aria-invalid')).toBe('true');
    // Leaving one of them out lifts the refusal.
    click(includeBox(dialog, main.packages.windows));
    expect(dialog.querySelector('.deploy_form_problem')).toBeNull();
    expect(deployButton(dialog).disabled).toBe(false);
    click(includeBox(dialog, main.packages.windows));

    // A channel butler cannot take.
    await typeInto(channelInput(dialog, main.packages.windows), 'Windows 64!');
    expect(channelInput(dialog, main.packages.windows).getAttribute('aria-invalid')).toBe('true');
    expect(packageRow(dialog, main.packages.windows).textContent).toContain("Use lower-case letters, digits, '.', '_' and '-'");
    expect(deployButton(dialog).disabled).toBe(true);
    await typeInto(channelInput(dialog, main.packages.windows), 'windows-64');
    expect(deployButton(dialog).disabled).toBe(false);

    // Back to no site: disabled again.
    await act(() => fireEvent.change(dialog.querySelector('select[name="site"]')!, { target: { value: '' } }));
    expect(deployButton(dialog).disabled).toBe(true);
    click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await dialogClosed();
    expect(butler.records()).toHaveLength(0);
  });

  test("the server's refusal is shown in words: another package already deploying to that channel", async () => {
    // A slow deploy of the Linux build to 'busy', started elsewhere (REST).
    butler.control({ mode: 'ok', steps: 20, stepMs: 200 });
    try {
      const started = await main.server.fetch(`/api/projects/${main.team.project.id}/versions/${main.versionId}/deploy`, {
        method: 'POST',
        token: main.team.admin.token,
        json: { site: main.siteId, packages: [{ package: main.packages.linux, channel: 'busy' }] },
      });
      expect(started.status).toBe(200);
      openApp(versionPath(main), main.team.owner.token);
      const dialog = await openDeployDialog();
      await chooseSite(dialog, main.siteId);
      await appeared(dialog, 'li.deploy_package');
      click(includeBox(dialog, main.packages.linux));
      await typeInto(channelInput(dialog, main.packages.windows), 'busy');
      click(deployButton(dialog));
      const refusal = await appeared(dialog, '.deploy_refusal');
      expect(refusal.textContent).toBe('Another package of this project is being deployed to that channel right now. Try again when it has finished.');
      // Still the form: nothing started, nothing kept for a reload.
      expect(dialog.querySelector('[data-testid="deploy-progress"]')).toBeNull();
      expect(sessionStorage.getItem(`deploy_jobs:${main.versionId}`)).toBeNull();
      // Changing the form clears the refusal.
      await typeInto(channelInput(dialog, main.packages.windows), 'windows');
      expect(dialog.querySelector('.deploy_refusal')).toBeNull();
      click(within(dialog).getByRole('button', { name: 'Cancel' }));
      await dialogClosed();
      // The deploy started elsewhere is on the version page, followed live.
      const deploys = await appeared(document, '[data-testid="version-deploys"]');
      await until(() => expect(deploys.querySelector('.deploy_job[data-state="succeeded"] .deploy_job_channel')?.textContent).toBe('channel busy'), 60_000);
    } finally {
      butler.control({ mode: 'ok', steps: 4, stepMs: 50 });
    }
  });
});

describe('butler not installed', () => {
  let bare: TestServer;
  let world: World;
  beforeAll(async () => {
    bare = await startTestServer({ ITCH_API_URL: itch.url, BUTLER_PATH: join(tmpdir(), `no-such-butler-${process.pid}`, 'butler'), BUTLER_IDLE_TIMEOUT: '5' });
    world = await makeWorld(bare, 'nobutler');
  }, 90_000);
  afterAll(async () => {
    cleanup();
    await bare?.stop();
  });

  test('choosing the site says so before the start, and Deploy stays disabled', async () => {
    setApiOrigin(bare.url);
    openApp(versionPath(world), world.team.owner.token);
    const dialog = await openDeployDialog();
    await chooseSite(dialog, world.siteId);
    const problem = await appeared(dialog, '.deploy_site_problem');
    expect(problem.textContent).toStartWith("butler, itch.io's upload tool, is not installed on this server");
    expect(problem.getAttribute('data-problem')).toBe('butler_missing');
    await appeared(dialog, 'li.deploy_package');
    expect(deployButton(dialog).disabled).toBe(true);
    click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await dialogClosed();
  });
});

describe('deploying', () => {
  test('two packages to two channels: both reach succeeded with their itch.io build and butler output', async () => {
    butler.control({ mode: 'ok', steps: 4, stepMs: 50 });
    const before = butler.records().length;
    openApp(versionPath(main), main.team.owner.token);
    const dialog = await openDeployDialog();
    await chooseSite(dialog, main.siteId);
    await appeared(dialog, 'li.deploy_package');
    await typeInto(channelInput(dialog, main.packages.windows), 'windows-beta');
    click(deployButton(dialog));
    const progress = await appeared(dialog, '[data-testid="deploy-progress"]');
    await until(() => expect(progress.querySelectorAll('.deploy_job')).toHaveLength(2));
    expect(dialog.textContent).toContain('Deploying to teamdev/game.');
    // Stored for a reload while it runs.
    expect(sessionStorage.getItem(`deploy_jobs:${main.versionId}`)).toContain('Linux build');
    await until(() => {
      const states = [...progressRows(dialog).values()].map((row) => row.getAttribute('data-state'));
      expect(states).toEqual(['succeeded', 'succeeded']);
    }, 60_000);
    const rows = progressRows(dialog);
    expect([...rows.keys()]).toEqual(['Linux build', 'Windows build']);
    const linux = rows.get('Linux build')!;
    const windows = rows.get('Windows build')!;
    expect(linux.querySelector('.deploy_job_channel')?.textContent).toBe('channel linux');
    expect(windows.querySelector('.deploy_job_channel')?.textContent).toBe('channel windows-beta');
    expect(linux.querySelector('.deploy_job_state')?.textContent).toBe('Succeeded');
    const builds = itch.builds.filter((build) => build.target === 'teamdev/game');
    const linuxBuild = builds.find((build) => build.channel === 'linux')!;
    const windowsBuild = builds.find((build) => build.channel === 'windows-beta')!;
    expect(linux.querySelector('.deploy_job_build')?.textContent).toBe(`itch.io build ${linuxBuild.id}`);
    expect(windows.querySelector('.deploy_job_build')?.textContent).toBe(`itch.io build ${windowsBuild.id}`);
    // butler's output, whole: scrollable and monospace, named for screen readers.
    const log = linux.querySelector<HTMLElement>('pre.deploy_log')!;
    expect(log.getAttribute('aria-label')).toBe('Output of Linux build');
    expect(log.textContent).toContain('For channel `linux`: pushing first build');
    expect(windows.querySelector('pre.deploy_log')?.textContent).toContain('For channel `windows-beta`: pushing first build');
    expect(linux.querySelector('progress')).toBeNull();

    const pushes = butler.records().slice(before);
    expect(pushes.map((push) => push.channel).sort()).toEqual(['linux', 'windows-beta']);
    expect(pushes.every((push) => push.target === 'teamdev/game' && push.userVersion === '1.4.0' && push.outcome === 'succeeded')).toBe(true);

    click(within(dialog).getByRole('button', { name: 'Close' }));
    await dialogClosed();
    expect(sessionStorage.getItem(`deploy_jobs:${main.versionId}`)).toBeNull();
    // The version page's Deploys lists them, newest first.
    const deploys = await appeared(document, '[data-testid="version-deploys"]');
    expect(deploys.querySelector('h2')?.textContent).toBe('Deploys');
    // Newest first: the two just started above the one of the refusal test.
    await until(() => {
      const rows = [...deploys.querySelectorAll('.deploy_job')].slice(0, 2);
      expect(rows.map((row) => row.querySelector('.deploy_job_channel')?.textContent).sort()).toEqual(['channel linux', 'channel windows-beta']);
      expect(rows.map((row) => row.getAttribute('data-state'))).toEqual(['succeeded', 'succeeded']);
    });
    expect(deploys.textContent).toContain(`by ${main.team.owner.name}`);
  });

  test('a failing butler: the job ends errored with the reason', async () => {
    butler.control({ mode: 'fail', steps: 4, stepMs: 50 });
    try {
      openApp(versionPath(main), main.team.owner.token);
      const dialog = await openDeployDialog();
      await chooseSite(dialog, main.siteId);
      await appeared(dialog, 'li.deploy_package');
      click(includeBox(dialog, main.packages.windows));
      await typeInto(channelInput(dialog, main.packages.linux), 'linux-fail');
      click(deployButton(dialog));
      const progress = await appeared(dialog, '[data-testid="deploy-progress"]');
      const row = await appeared(progress, '.deploy_job');
      await until(() => expect(row.getAttribute('data-state')).toBe('errored'), 60_000);
      expect(row.querySelector('.deploy_job_state')?.textContent).toBe('Failed');
      expect(row.querySelector('.deploy_job_error')?.textContent).toStartWith('The deploy failed: ');
      expect(row.querySelector('.deploy_job_error')?.textContent).toContain('simulated upload failure');
      expect(row.querySelector('.deploy_job_build')).toBeNull();
      click(within(dialog).getByRole('button', { name: 'Close' }));
      await dialogClosed();
    } finally {
      butler.control({ mode: 'ok', steps: 4, stepMs: 50 });
    }
  });

  test('a reload reopens the dialog on its progress until it is closed', async () => {
    // Slow enough to reload while it runs.
    butler.control({ mode: 'ok', steps: 20, stepMs: 250 });
    try {
      openApp(versionPath(main), main.team.owner.token);
      let dialog = await openDeployDialog();
      await chooseSite(dialog, main.siteId);
      await appeared(dialog, 'li.deploy_package');
      click(includeBox(dialog, main.packages.windows));
      await typeInto(channelInput(dialog, main.packages.linux), 'linux-reload');
      click(deployButton(dialog));
      await appeared(dialog, '[data-testid="deploy-progress"] .deploy_job');

      // The page goes away and comes back (the same tab: sessionStorage stays).
      cleanup();
      expect(document.querySelectorAll('dialog')).toHaveLength(0);
      openApp(versionPath(main), main.team.owner.token);
      dialog = await appeared(document, 'dialog.deploy_dialog', 20_000);
      const row = await appeared(dialog, '[data-testid="deploy-progress"] .deploy_job');
      expect(row.querySelector('.deploy_job_title')?.textContent).toBe('Linux build');
      expect(row.querySelector('.deploy_job_channel')?.textContent).toBe('channel linux-reload');
      await until(() => expect(row.getAttribute('data-state')).toBe('succeeded'), 60_000);
      expect(row.querySelector('.deploy_job_build')?.textContent).toMatch(/^itch\.io build \d+$/);
      click(within(dialog).getByRole('button', { name: 'Close' }));
      await dialogClosed();

      // Closed: a later reload does not reopen it.
      openApp(versionPath(main), main.team.owner.token);
      await versionToolbar();
      await appeared(document, '[data-testid="version-deploys"]');
      await act(() => new Promise<void>((resolve) => setTimeout(resolve, 300)));
      expect(document.querySelectorAll('dialog')).toHaveLength(0);
    } finally {
      butler.control({ mode: 'ok', steps: 4, stepMs: 50 });
    }
  });
});
