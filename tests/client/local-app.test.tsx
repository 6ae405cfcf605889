import { useDom } from './setup.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { findFreePort } from '../support/free-port.ts';
import { uploadPackage } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { startLocalHelper, type LocalHelper } from './local-app-support.ts';

/**
 * The local app in the web client (spec §2 'local', install dialog, §4 install flow, §5): the /local page
 * against the REAL helper (src/helper, a process on a free port): not detected (nothing on the port,
 * with the server's downloads), not trusted (the helper's refusal with its command), connected with the
 * root folders; the package page's Install dialog (OK disabled until a workspace is chosen, the choice
 * remembered under last_install_workspace_id), the install's progress then Launch; the installed
 * package on /local with Repair and Uninstall.
 *
 * happy-dom's fetch is Bun's, which sends no Origin: the page's helper client is given one that says the
 * page's origin (http://localhost:3000), as a browser would.
 */
useDom();
const { act, fireEvent, waitFor, within } = await import('@testing-library/react');
const { openApp } = await import('./app-harness.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');
const { setLocalHelperClient } = await import('../../src/client/lib/local-app/helper.ts');
const { createLocalHelperClient } = await import('../../src/shared/local/helper-client.ts');
const { defaultFolderName, safeFolderName, updatableWorkdir } = await import('../../src/client/lib/local-app/install.ts');
const { installCommand, likelyPlatforms } = await import('../../src/client/routes/local/local-app-downloads.tsx');

const pageOrigin = 'http://localhost:3000';
const realFetch = globalThis.fetch;
let server: TestServer;
let helper: LocalHelper;
let appDir: string;
let owner: TestUser;
let project: TestProject;
let branchId: string;
let versionId: string;
let pkg: Package;

beforeAll(async () => {
  appDir = mkdtempSync(join(tmpdir(), 'cartridge-local-app-builds-'));
  writeFileSync(join(appDir, 'cartridge-helper-linux-x64'), 'fake linux build');
  writeFileSync(join(appDir, 'cartridge-helper-windows-x64.exe'), 'fake windows build');
  server = await startTestServer({ LOCAL_APP_DIR: appDir });
  // The page's origin calls the helper; the package URLs it hands over are the server's.
  helper = await startLocalHelper({ trust: [pageOrigin, new URL(server.url).origin] });
  owner = await registerUser(server);
  project = await createProject(server, owner, 'Star Raiders');
  pkg = await uploadPackage(server, owner, project.id, { 'run.sh': '#!/bin/sh\necho hi\n', 'data/level.txt': 'level one' }, { tags: ['os:linux'], entrypoint: ['run.sh'], title: 'Linux build' });
  const call = async (method: string, path: string, json?: unknown) => (await server.fetch(path, { method, token: owner.token, json })).json();
  branchId = (await call('POST', `/api/projects/${project.id}/branches`, { title: 'stable' })).id;
  versionId = (await call('POST', `/api/projects/${project.id}/versions`, { title: '1.0.0', packages: [pkg.id] })).id;
  await call('POST', `/api/projects/${project.id}/branches/${branchId}/versions/${versionId}`);
}, 60_000);
afterAll(async () => {
  setLocalHelperClient(undefined);
  await helper?.dispose();
  await server?.stop();
  rmSync(appDir, { recursive: true, force: true });
});
beforeEach(() => {
  setBearerToken(null);
  setApiOrigin(server.url);
  useHelper(helper.url, pageOrigin);
});

/** The page's helper client: at `baseUrl`, sending `origin` as the browser would. */
function useHelper(baseUrl: string, origin: string) {
  setLocalHelperClient(
    createLocalHelperClient({
      baseUrl,
      fetch: ((input: RequestInfo | URL, init?: RequestInit) => realFetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin } })) as typeof fetch,
    }),
  );
}

const body = () => within(document.body);


const packagePath = () => `/projects/${project.id}/branches/${branchId}/versions/${versionId}/packages/${pkg.id}`;
/**
 * The open dialog. Waited for with a boolean: a failing toBeNull() on a happy-dom element formats the
 * whole element graph, which starves the event loop (and the in-process server) between two checks.
 */
const openDialog = () => document.querySelector<HTMLDialogElement>('dialog[open]');
const launcher = (name: string) => document.querySelector<HTMLElement>(`.package_launcher[data-action="${name}"]`);
const launcherButton = (name: string) => launcher(name)?.querySelector('button') ?? null;

describe('/local without a connected helper', () => {
  test('not detected: the warning, the server\'s downloads with their install commands, Retry and the docs', async () => {
    useHelper(`http://127.0.0.1:${await findFreePort()}`, pageOrigin);
    openApp('/local');
    await body().findByRole('heading', { level: 2, name: 'The local app was not detected' });
    expect(document.title).toBe('Local app - Cartridge');
    expect(document.querySelector('main')?.className).toContain('page_local');
    const linux = await waitFor(() => {
      const item = document.querySelector<HTMLElement>('.local_download[data-platform="linux-x64"]');
      if (!item) throw new Error('no linux download yet');
      return item;
    });
    const link = within(linux).getByRole('link', { name: 'Linux x64' });
    expect(link.getAttribute('href')).toBe(`${server.url}/api/local-app/linux-x64`);
    expect(link.getAttribute('download')).toBe('cartridge-helper-linux-x64');
    expect(linux.querySelector('pre')?.textContent).toBe(
      `curl -fL --create-dirs -o ~/.local/bin/cartridge-helper '${server.url}/api/local-app/linux-x64' && chmod +x ~/.local/bin/cartridge-helper && ~/.local/bin/cartridge-helper`,
    );
    const windows = document.querySelector<HTMLElement>('.local_download[data-platform="windows-x64"]')!;
    expect(within(windows).getByRole('link', { name: 'Windows x64' }).getAttribute('href')).toBe(`${server.url}/api/local-app/windows-x64`);
    expect(windows.querySelector('pre')?.textContent).toContain('Invoke-WebRequest');
    // Only the builds the server has.
    expect(document.querySelectorAll('.local_download')).toHaveLength(2);
    const warning = document.querySelector<HTMLElement>('.local_warning')!;
    expect(warning.textContent).toContain('cartridge-helper trust http://localhost:3000');
    expect(within(warning).getByRole('link', { name: 'How the local app works' }).getAttribute('href')).toBe('/docs/en/local-app');
    // Nothing installed is listed while the app does not answer.
    expect(body().queryByRole('heading', { name: 'Installed packages' }) === null).toBe(true);

    // The app starts answering: Retry connects.
    useHelper(helper.url, pageOrigin);
    act(() => fireEvent.click(within(warning).getByRole('button', { name: 'Retry' })));
    await body().findByRole('heading', { level: 2, name: 'Installed packages' });
    expect(body().queryByText('The local app was not detected') === null).toBe(true);
  });

  test('not trusted: the command the helper names, for this page\'s origin', async () => {
    useHelper(helper.url, 'http://untrusted.example');
    openApp('/local');
    await body().findByRole('heading', { level: 2, name: 'The local app does not trust this site yet' });
    expect(document.querySelector('.local_warning pre')?.textContent).toBe('cartridge-helper trust http://untrusted.example');
    expect(body().getByRole('button', { name: 'Retry' })).toBeTruthy();
    // It runs: from now on the package pages ask it too (and say it does not trust the site).
    expect(localStorage.getItem('local_app_seen')).toBe('1');
  });

  test('the package page of a browser that never saw the app does not call it', async () => {
    const calls: string[] = [];
    setLocalHelperClient(
      createLocalHelperClient({
        baseUrl: helper.url,
        fetch: ((input: RequestInfo | URL, init?: RequestInit) => {
          calls.push(String(input));
          return realFetch(input, init);
        }) as typeof fetch,
      }),
    );
    openApp(packagePath(), owner.token);
    // Nothing was asked, so nothing failed (issue 29): "not detected yet", not "not connected".
    await waitFor(() => expect(launcher('install')?.textContent).toContain('The local app was not detected yet.'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls).toEqual([]);
    expect(document.body.textContent).not.toContain('The local app is not connected.');
    expect(within(launcher('local_check')!).getByRole('button', { name: 'Check again' })).toBeTruthy();
    expect(within(launcher('local_setup')!).getByRole('link', { name: 'Set up the local app' }).getAttribute('href')).toBe('/local');
  });

  test('Check again probes the app on the user\'s word: nothing on the port says not connected, a running app connects', async () => {
    const calls: string[] = [];
    const probeAt = (baseUrl: string) =>
      setLocalHelperClient(
        createLocalHelperClient({
          baseUrl,
          fetch: ((input: RequestInfo | URL, init?: RequestInit) => {
            calls.push(new URL(String(input)).pathname);
            return realFetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin: pageOrigin } });
          }) as typeof fetch,
        }),
      );
    probeAt(`http://127.0.0.1:${await findFreePort()}`);
    openApp(packagePath(), owner.token);
    await waitFor(() => expect(launcher('install')?.textContent).toContain('The local app was not detected yet.'));
    expect(calls).toEqual([]);
    act(() => fireEvent.click(within(launcher('local_check')!).getByRole('button', { name: 'Check again' })));
    // The probe failed: now it is said, and Check again stays for when the app has been started.
    await waitFor(() => expect(launcher('install')?.textContent).toContain('The local app is not connected.'));
    expect(calls).toHaveLength(1);
    expect(localStorage.getItem('local_app_seen')).toBeNull();
    expect(launcherButton('local_check')?.disabled).toBe(false);

    // The app runs now: Check again connects, and Install is offered.
    probeAt(helper.url);
    act(() => fireEvent.click(within(launcher('local_check')!).getByRole('button', { name: 'Check again' })));
    await waitFor(() => expect(launcherButton('install')?.disabled).toBe(false));
    expect(launcher('local_check')).toBeNull();
    expect(localStorage.getItem('local_app_seen')).toBe('1');
  });

  test('the package page: Install, Launch and Update disabled with the reason, and a way to set the app up', async () => {
    useHelper(`http://127.0.0.1:${await findFreePort()}`, pageOrigin);
    localStorage.setItem('local_app_seen', '1');
    openApp(packagePath(), owner.token);
    await waitFor(() => expect(launcher('install')?.textContent).toContain('The local app is not connected.'));
    expect(within(launcher('local_check')!).getByRole('button', { name: 'Check again' })).toBeTruthy();
    for (const name of ['install', 'launch', 'update']) {
      expect(launcherButton(name)?.disabled).toBe(true);
      expect(document.getElementById(launcherButton(name)!.getAttribute('aria-describedby')!)?.textContent).toBe('The local app is not connected.');
    }
    expect(within(launcher('local_setup')!).getByRole('link', { name: 'Set up the local app' }).getAttribute('href')).toBe('/local');

    useHelper(helper.url, 'http://untrusted.example');
    openApp(packagePath(), owner.token);
    await waitFor(() => expect(launcher('install')?.textContent).toContain('The local app does not trust this site yet.'));
  });
});

describe('with the helper connected', () => {
  // A browser where the app has answered: the package pages ask it too (the /local test shows how it is set).
  beforeEach(() => localStorage.setItem('local_app_seen', '1'));

  test('/local: connected, nothing installed, the root folder', async () => {
    localStorage.clear();
    openApp('/local');
    await body().findByText(/Connected to the local app/);
    expect(localStorage.getItem('local_app_seen')).toBe('1');
    expect(document.querySelector('.local_connected')?.textContent).toContain(`0.0.1 (${process.platform}-${process.arch})`);
    await body().findByText('Nothing is installed on this computer yet.');
    const folders = await waitFor(() => {
      const list = document.querySelector<HTMLElement>('.local_workspace_list');
      if (!list) throw new Error('no root folders yet');
      return list;
    });
    expect(folders.textContent).toBe(helper.workspace);
  });

  test('a package reached without a branch cannot be installed, and says how to', async () => {
    openApp(`/projects/${project.id}/packages/${pkg.id}`, owner.token);
    await waitFor(() => expect(launcher('install')?.textContent).toContain('To install it, open this package from a version published in a branch.'));
    expect(launcherButton('install')?.disabled).toBe(true);
    expect(launcher('launch')?.textContent).toContain('Not installed on this computer.');
  });

  test('install dialog: OK disabled until a root folder is chosen, which is remembered; the install shows its progress, then Launch', async () => {
    openApp(packagePath(), owner.token);
    await waitFor(() => expect(launcherButton('install')?.disabled).toBe(false));
    expect(launcher('launch')?.textContent).toContain('Not installed on this computer.');
    expect(launcher('update')?.textContent).toContain('No other version of this branch is installed.');
    act(() => fireEvent.click(launcherButton('install')!));
    const dialog = await body().findByRole('dialog', { name: 'Install Linux build' });
    const ok = () => within(dialog).getByRole('button', { name: 'Install' }) as HTMLButtonElement;
    const select = (await within(dialog).findByRole('combobox', { name: 'Root folder' })) as HTMLSelectElement;
    expect((within(dialog).getByRole('radio', { name: 'A new folder' }) as HTMLInputElement).checked).toBe(true);
    expect((within(dialog).getByRole('textbox', { name: 'Folder name' }) as HTMLInputElement).value).toBe('Star Raiders Linux build');
    expect(select.value).toBe('');
    expect(ok().disabled).toBe(true);
    expect(localStorage.getItem('last_install_workspace_id')).toBeNull();

    act(() => void fireEvent.change(select, { target: { value: 'default' } }));
    await waitFor(() => expect(ok().disabled).toBe(false));
    // A name no system accepts keeps OK disabled.
    const name = within(dialog).getByRole('textbox', { name: 'Folder name' }) as HTMLInputElement;
    act(() => void fireEvent.change(name, { target: { value: 'bad:name' } }));
    await waitFor(() => expect(ok().disabled).toBe(true));
    expect(dialog.textContent).toContain('This name cannot be used for a folder on every system.');
    act(() => void fireEvent.change(name, { target: { value: 'Star Raiders' } }));
    await waitFor(() => expect(ok().disabled).toBe(false));

    act(() => fireEvent.click(ok()));
    await waitFor(() => expect(openDialog() === null).toBe(true), { timeout: 10_000 });
    expect(localStorage.getItem('last_install_workspace_id')).toBe('default');
    // Installed: Launch is offered (a tiny package may finish before a percent is ever shown).
    await waitFor(() => expect(launcherButton('launch')?.disabled).toBe(false), { timeout: 15_000 });
    expect(readFileSync(join(helper.workspace, 'Star Raiders', 'data', 'level.txt'), 'utf8')).toBe('level one');
    expect(launcher('update')?.textContent).toContain('No other version of this branch is installed.');

    // Again: the remembered root folder is chosen, OK is enabled at once; the existing folder is offered
    // (same project first) and a new one's default name does not clash with it.
    act(() => fireEvent.click(launcherButton('install')!));
    const again = await body().findByRole('dialog', { name: 'Install Linux build' });
    const againOk = within(again).getByRole('button', { name: 'Install' }) as HTMLButtonElement;
    await waitFor(() => expect((within(again).getByRole('combobox', { name: 'Root folder' }) as HTMLSelectElement).value).toBe('default'));
    expect(againOk.disabled).toBe(false);
    expect((within(again).getByRole('textbox', { name: 'Folder name' }) as HTMLInputElement).value).toBe('Star Raiders Linux build');
    const existing = again.querySelectorAll<HTMLInputElement>('input[type="radio"]');
    expect(existing).toHaveLength(2);
    expect(existing[1]!.closest('label')?.textContent).toContain('Star Raiders · Linux build');
    act(() => fireEvent.click(within(again).getByRole('button', { name: 'Cancel' })));
    await waitFor(() => expect(openDialog() === null).toBe(true));
  }, 40_000);

  test('/local lists the installed package; Repair restores a damaged file; Uninstall asks, then deletes', async () => {
    openApp('/local');
    const row = await waitFor(() => {
      const item = document.querySelector<HTMLElement>('.local_workdir');
      if (!item) throw new Error('no installed package yet');
      return item;
    });
    expect(row.dataset.state).toBe('installed');
    for (const text of ['Star Raiders', 'stable', '1.0.0', 'Linux build', 'Installed', join(helper.workspace, 'Star Raiders')]) expect(row.textContent).toContain(text);
    expect(row.querySelector('[data-bytes]')?.getAttribute('data-bytes')).toBe(String(pkg.size));

    const file = join(helper.workspace, 'Star Raiders', 'data', 'level.txt');
    writeFileSync(file, 'level 0ne');
    // Repair, Show folder and Uninstall are in the row's menu (Launch stays a button).
    const currentRow = () => document.querySelector<HTMLElement>('.local_workdir')!;
    const menuItem = async (name: string) => {
      act(() => fireEvent.click(within(currentRow()).getByRole('button', { name: 'Actions for Star Raiders · Linux build' })));
      return (await within(currentRow()).findByRole('menuitem', { name })) as HTMLButtonElement;
    };
    const repairItem = await menuItem('Repair');
    act(() => fireEvent.click(repairItem));
    await waitFor(() => expect(readFileSync(file, 'utf8')).toBe('level one'), { timeout: 15_000 });
    // Done: the actions are enabled again (they are off while the repair runs).
    const launch = () => within(currentRow()).getByRole('button', { name: 'Launch' }) as HTMLButtonElement;
    await waitFor(() => expect(launch().disabled).toBe(false), { timeout: 10_000 });
    expect(currentRow().dataset.state).toBe('installed');
    expect((await menuItem('Repair')).disabled).toBe(false);

    act(() => fireEvent.click(within(currentRow()).getByRole('menuitem', { name: 'Uninstall' })));
    const confirm = await body().findByRole('alertdialog', { name: 'Uninstall this game?' });
    expect(confirm.textContent).toContain(join(helper.workspace, 'Star Raiders'));
    expect(document.activeElement).toBe(within(confirm).getByRole('button', { name: 'Cancel' }));
    act(() => fireEvent.click(within(confirm).getByRole('button', { name: 'Uninstall' })));
    await body().findByText('Nothing is installed on this computer yet.', undefined, { timeout: 10_000 });
    expect(existsSync(file)).toBe(false);
  }, 40_000);
});

describe('rules', () => {
  test('folder names every system accepts', () => {
    expect(safeFolderName('Star Raiders: Linux/x64 build.')).toBe('Star Raiders Linux x64 build');
    expect(safeFolderName('  CON ')).toBe('CON game');
    expect(safeFolderName('..')).toBe('game');
    expect(safeFolderName('.cartridge')).toBe('cartridge');
    expect(safeFolderName('a\u0000b\u007fc')).toBe('a b c');
    expect([...safeFolderName('x'.repeat(300))]).toHaveLength(80);
    expect(defaultFolderName('Star Raiders', 'Linux build', [])).toBe('Star Raiders Linux build');
    expect(defaultFolderName('Star Raiders', 'Star Raiders 1.0 Linux', [])).toBe('Star Raiders 1.0 Linux');
    expect(defaultFolderName('Game', 'Linux', ['game linux', 'Game Linux (2)'])).toBe('Game Linux (3)');
  });

  test('Update picks the workdir of the same branch at another version, the same build first', () => {
    const workdir = (id: string, version: string, packageTitle: string) => ({
      id,
      workspace_id: 'w',
      local_path: `/g/${id}`,
      state: 'installed' as const,
      size: 1,
      entrypoint: [],
      running: false,
      project_id: 'p',
      branch_id: 'b',
      version_id: version,
      package_id: `pkg-${id}`,
      project_title: 'P',
      branch_title: 'B',
      version_title: version,
      package_title: packageTitle,
    });
    const installed = [workdir('win', '1.0', '1.0 Windows'), workdir('lin', '1.0', '1.0 Linux'), workdir('same', '1.1', '1.1 Linux')];
    expect(updatableWorkdir(installed, { branchId: 'b', versionId: '1.1', versionTitle: '1.1', packageTitle: '1.1 Linux' })?.id).toBe('lin');
    expect(updatableWorkdir(installed, { branchId: 'b', versionId: '1.1', versionTitle: '1.1', packageTitle: '1.1 macOS' })?.id).toBe('win');
    expect(updatableWorkdir(installed, { branchId: 'other', versionId: '1.1', versionTitle: '1.1', packageTitle: '1.1 Linux' })).toBeUndefined();
  });

  test('install commands and the likely platforms', () => {
    expect(installCommand({ platform: 'darwin-arm64', url: 'https://g.example/api/local-app/darwin-arm64' })).toContain("curl -fL --create-dirs -o ~/.local/bin/cartridge-helper 'https://g.example/api/local-app/darwin-arm64'");
    expect(installCommand({ platform: 'windows-x64', url: 'https://g.example/api/local-app/windows-x64' })).toContain("Invoke-WebRequest 'https://g.example/api/local-app/windows-x64'");
    expect(likelyPlatforms('Mozilla/5.0 (X11; Linux x86_64)')).toEqual(['linux-x64', 'linux-arm64']);
    expect(likelyPlatforms('Mozilla/5.0 (Windows NT 10.0; Win64; x64)')).toEqual(['windows-x64']);
    expect(likelyPlatforms('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7)')).toEqual(['darwin-arm64', 'darwin-x64']);
  });
});
