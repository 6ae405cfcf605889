import { afterAll, beforeAll, expect, test } from 'bun:test';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { formatSize } from '../../src/shared/format/size.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import type { TestUser } from '../support/accounts.ts';
import { uploadPackage } from '../support/packages.ts';
import { openPublishDialog } from './support/uploads.ts';
import { eq } from 'drizzle-orm';
import { cloudSessions } from '../../src/server/db/schema/index.ts';
import { addMachineRecord } from '../../src/server/domains/cloud-play/machines.service.ts';
import { createCloudAgentClient } from '../support/cloud-agent-client.ts';
import { grantPrivilege, makePublic, makeTeam, type Team } from '../support/projects.ts';
import { en, message, openDialog, rtlLanguage, startE2E, visit, waitForScreen, watchConsole, type E2E } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';

/** Spec §2 packages/{package} (three routes), the version's packages list, the store's packages, and the project's packages screen and add-existing dialog (issue 29). */
let e2e: E2E;
let team: Team;
let webPackage: Package;
let linuxPackage: Package;
let branch: Item;
let version: Item;

type Item = { id: string; title: string };

async function api<T = Item>(method: string, path: string, user: TestUser, json?: unknown): Promise<T> {
  const response = await e2e.server.fetch(path, { method, token: user.token, json });
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const base = () => `/api/projects/${team.project.id}`;
const packagePath = (pkg: Package, via: { version?: Item; branch?: Item } = {}) => {
  const project = `/projects/${team.project.id}`;
  const prefix = via.version ? (via.branch ? `${project}/branches/${via.branch.id}/versions/${via.version.id}` : `${project}/versions/${via.version.id}`) : project;
  return `${prefix}/packages/${pkg.id}`;
};

async function openPackage(page: Page, pkg: Package, via: { version?: Item; branch?: Item } = {}, title = pkg.title): Promise<void> {
  await visit(page, packagePath(pkg, via), 'page_package');
  await page.locator('main h1', { hasText: title }).waitFor({ timeout: 10_000 });
}

beforeAll(async () => {
  e2e = await startE2E();
  team = await makeTeam(e2e.server);
  webPackage = await uploadPackage(
    e2e.server,
    team.developer,
    team.project.id,
    { 'index.html': '<!doctype html><title>Game</title><canvas id="screen"></canvas><script src="game.js"></script>', 'game.js': 'parent.postMessage({ type: "drawn" }, "*");' },
    { tags: ['os:web'], entrypoint: ['index.html'], title: 'Web build' },
  );
  linuxPackage = await uploadPackage(
    e2e.server,
    team.developer,
    team.project.id,
    { 'bin/run.sh': '#!/bin/sh\necho run\n', 'data/level1.txt': 'x'.repeat(5000), 'README.txt': 'Read me' },
    { tags: ['os:linux', 'arch:x86'], entrypoint: ['bin', 'run.sh'], title: 'Linux build' },
  );
  branch = await api('POST', `${base()}/branches`, team.owner, { title: 'stable' });
  version = await api('POST', `${base()}/versions`, team.owner, { title: '1.0.0', description: '', packages: [linuxPackage.id, webPackage.id] });
  await api('POST', `${base()}/branches/${branch.id}/versions/${version.id}`, team.owner);
}, 90_000);
afterAll(async () => {
  await e2e?.close();
});

test('details through a branch and version: title, tags, size, start file, trail, sidebar and the contents tree', async () => {
  const { page, context } = await e2e.openSignedIn({ user: team.tester });
  await openPackage(page, linuxPackage, { version, branch });
  await page.waitForFunction((title) => document.title === title, 'Linux build - Cartridge', { timeout: 10_000 });
  const crumbs = await page.locator('nav.breadcrumb li').allTextContents();
  expect(crumbs.slice(-4)).toEqual([team.project.title, 'stable', '1.0.0', 'Linux build']);
  expect(await page.locator('[data-testid="package-tags"] li').allTextContents()).toEqual(['Linux', 'x86']);
  expect(await page.locator('[data-testid="package-size"]').textContent()).toBe(formatSize(linuxPackage.size!, 'en'));
  expect(await page.locator('[data-testid="package-start-file"] code').textContent()).toBe('bin/run.sh');
  // Uploaded without its executable bit, in a Linux package: it would not start (issue 29).
  expect(await page.getByTestId('package-start-file-not-executable').textContent()).toBe(en('package_page_start_file_not_executable'));
  // Sibling packages of the version, the current one marked.
  const sidebar = page.locator('aside nav', { hasText: en('package_page_sidebar') });
  // Each row's name, then its secondary line (upload date and size) that tells builds of one name apart.
  expect(await sidebar.locator('a > bdi').allTextContents()).toEqual(['Linux build', 'Web build']);
  expect(await sidebar.locator('a[aria-current="page"] > bdi').textContent()).toBe('Linux build');
  expect(await sidebar.locator('a [data-fact="uploaded"]').count()).toBe(2);
  expect(await sidebar.locator('a', { hasText: 'Web build' }).getAttribute('href')).toBe(packagePath(webPackage, { version, branch }));

  // Folders first, closed; a folder opens with the keyboard and shows its files with sizes and badges.
  const tree = page.locator('[data-testid="archive-browser"]');
  await tree.waitFor({ timeout: 10_000 });
  const top = tree.locator(':scope > ul > li');
  expect(await top.evaluateAll((items) => items.map((item) => item.getAttribute('data-path')))).toEqual(['bin', 'data', 'README.txt']);
  const data = tree.locator('li[data-path="data"] > button');
  expect(await data.getAttribute('aria-expanded')).toBe('false');
  await data.focus();
  await page.keyboard.press('Enter');
  expect(await data.getAttribute('aria-expanded')).toBe('true');
  expect(await tree.locator('li[data-path="data/level1.txt"]').textContent()).toContain(formatSize(5000, 'en'));
  await tree.locator('li[data-path="bin"] > button').click();
  const run = tree.locator('li[data-path="bin/run.sh"]');
  expect(await run.textContent()).toContain(en('package_page_start_badge'));
  await data.focus();
  await page.keyboard.press('Space');
  expect(await data.getAttribute('aria-expanded')).toBe('false');
  expect(await tree.locator('li[data-path="data/level1.txt"]').count()).toBe(0);
  // A tester may not edit: no actions toolbar.
  expect(await page.getByRole('group', { name: en('package_page_actions_label'), exact: true }).count()).toBe(0);
  await context.close();
});

test('the version page lists its packages; the project route has the project as the sibling list', async () => {
  const { page, context } = await e2e.openSignedIn({ user: team.tester });
  await visit(page, `/projects/${team.project.id}/versions/${version.id}`, 'page_version');
  const list = page.locator('[data-testid="version-packages"]');
  await list.waitFor({ timeout: 10_000 });
  expect(await list.locator('a').allTextContents()).toEqual(['Linux build', 'Web build']);
  expect(await list.locator('li').first().textContent()).toContain(formatSize(linuxPackage.size!, 'en'));
  await list.locator('a', { hasText: 'Web build' }).click();
  await page.locator('main h1', { hasText: 'Web build' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(packagePath(webPackage, { version }));

  const extra = await uploadPackage(e2e.server, team.developer, team.project.id, { 'a.txt': 'a' }, { title: 'Loose package' });
  await openPackage(page, extra);
  const crumbs = await page.locator('nav.breadcrumb li').allTextContents();
  expect(crumbs.slice(-3)).toEqual([team.project.title, en('packages_crumb'), 'Loose package']);
  const sidebar = page.locator('aside nav', { hasText: en('package_page_sidebar') });
  await sidebar.locator('a', { hasText: 'Web build' }).waitFor();
  expect(await sidebar.locator('a').count()).toBe(3);
  // A package that is not in the version it is reached through is not found.
  await visit(page, packagePath(extra, { version }), 'page_not_found');
  await context.close();
});

test('Download ZIP gives the same bytes as the API; Download torrent saves a .torrent', async () => {
  const { page, context } = await e2e.openSignedIn({ user: team.tester });
  await openPackage(page, linuxPackage, { version });
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: en('package_page_download_zip'), exact: true }).click()]);
  const saved = new Uint8Array(await readFile((await download.path())!));
  const { url } = await api<{ url: string }>('GET', `${base()}/packages/${linuxPackage.id}/download?filter=zip`, team.tester);
  const fromApi = new Uint8Array(await (await fetch(new URL(url, e2e.server.url))).arrayBuffer());
  expect(saved.length).toBeGreaterThan(0);
  expect(saved[0]).toBe(0x50); // 'PK'
  expect(Buffer.from(saved).equals(Buffer.from(fromApi))).toBe(true);
  expect(download.suggestedFilename()).toEndWith('.zip');

  const [torrent] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: en('package_page_download_torrent'), exact: true }).click()]);
  expect(torrent.suggestedFilename()).toEndWith('.torrent');
  const torrentBytes = new TextDecoder('latin1').decode(await readFile((await torrent.path())!));
  expect(torrentBytes.startsWith('d')).toBe(true);
  expect(torrentBytes).toContain('4:info');
  await context.close();
});

test('edit tags round trip, rename, and delete refused while a version uses the package', async () => {
  const developer = await e2e.openSignedIn({ user: team.developer });
  const context = developer.context;
  let page = developer.page;
  await openPackage(page, linuxPackage, { version, branch });
  const toolbar = page.getByRole('group', { name: en('package_page_actions_label'), exact: true });
  await toolbar.getByRole('button', { name: en('edit_tags_title'), exact: true }).click();
  const dialog = openDialog(page);
  await dialog.waitFor();
  const distro = dialog.locator('fieldset', { has: page.locator('legend', { hasText: en('edit_tags_group_distro') }) });
  const ubuntu = dialog.getByLabel('Ubuntu', { exact: true });
  expect(await distro.getAttribute('disabled')).toBeNull(); // os:linux is ticked
  expect(await ubuntu.isDisabled()).toBe(false);
  await dialog.getByLabel('Ubuntu', { exact: true }).check();
  await dialog.getByLabel(en('edit_tags_value_bits', { bits: '64' }), { exact: true }).check();
  // Unticking Linux turns distros off and drops them; ticking it again leaves them unticked.
  await dialog.getByLabel('Linux', { exact: true }).uncheck();
  expect(await distro.getAttribute('disabled')).not.toBeNull();
  expect(await ubuntu.isDisabled()).toBe(true);
  expect(await ubuntu.isChecked()).toBe(false);
  expect(await distro.textContent()).toContain(en('edit_tags_distro_needs_os', { os: 'Linux' }));
  await dialog.getByLabel('Linux', { exact: true }).check();
  await dialog.getByLabel('Fedora', { exact: true }).check();
  await dialog.getByRole('button', { name: en('edit_tags_save'), exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  const tags = page.locator('[data-testid="package-tags"] li');
  await page.locator('[data-testid="package-tags"] li', { hasText: 'Fedora' }).waitFor();
  expect(await tags.allTextContents()).toEqual(['Linux', 'x86', en('edit_tags_value_bits', { bits: '64' }), 'Fedora']);
  let stored = await api<Package>('GET', `${base()}/packages/${linuxPackage.id}`, team.owner);
  expect(stored.tags).toEqual(['os:linux', 'arch:x86', 'bits:64', 'distro:fedora']);

  await toolbar.getByRole('button', { name: en('package_page_rename'), exact: true }).click();
  await openDialog(page).getByLabel(en('package_page_rename_label'), { exact: true }).fill('Linux build 64');
  await openDialog(page).getByRole('button', { name: en('package_page_rename'), exact: true }).click();
  await page.locator('main h1', { hasText: 'Linux build 64' }).waitFor();
  stored = await api<Package>('GET', `${base()}/packages/${linuxPackage.id}`, team.owner);
  expect(stored.title).toBe('Linux build 64');

  // A developer may edit but not delete; an admin may try.
  expect(await toolbar.getByRole('button', { name: en('package_page_delete'), exact: true }).count()).toBe(0);
  await context.close();
  const admin = await e2e.openSignedIn({ user: team.admin });
  page = admin.page;
  await openPackage(page, linuxPackage, { version, branch }, 'Linux build 64');
  await page.getByRole('button', { name: en('package_page_delete'), exact: true }).click();
  await openDialog(page).getByRole('button', { name: en('package_page_delete'), exact: true }).click();
  const refused = openDialog(page);
  await refused.locator('[data-error-code="not_empty"]').waitFor();
  expect(await refused.textContent()).toContain(en('package_page_delete_refused_title'));
  await refused.getByRole('button', { name: en('dialog_ok'), exact: true }).click();
  expect((await e2e.server.fetch(`${base()}/packages/${linuxPackage.id}`, { token: team.owner.token })).status).toBe(200);

  // Back to the old state for the other tests.
  await api('PATCH', `${base()}/packages/${linuxPackage.id}`, team.owner, { title: 'Linux build', tags: ['os:linux', 'arch:x86'] });
  await admin.context.close();
});

test('deleting an unused package goes back to the project', async () => {
  const loose = await uploadPackage(e2e.server, team.developer, team.project.id, { 'b.txt': 'b' }, { title: 'Throwaway' });
  const { page, context } = await e2e.openSignedIn({ user: team.admin });
  await openPackage(page, loose);
  await page.getByRole('button', { name: en('package_page_delete'), exact: true }).click();
  const dialog = openDialog(page);
  expect(await dialog.textContent()).toContain(en('package_page_delete_text', { title: 'Throwaway' }));
  await dialog.getByRole('button', { name: en('package_page_delete'), exact: true }).click();
  await page.waitForURL((url) => url.pathname === `/projects/${team.project.id}`);
  expect((await e2e.server.fetch(`${base()}/packages/${loose.id}`, { token: team.owner.token })).status).toBe(404);
  await context.close();
});

test('Play in browser only for web packages; Install, Launch, Update and Play in cloud disabled with their reasons', async () => {
  const { page, context } = await e2e.openSignedIn({ user: team.tester });
  await openPackage(page, linuxPackage, { version });
  const launcher = (name: string) => page.locator(`.package_launcher[data-action="${name}"]`);
  expect(await launcher('play').locator('button').isDisabled()).toBe(true);
  expect(await launcher('play').textContent()).toContain(en('package_page_play_needs_web', { tag: `${en('edit_tags_group_os')}: ${en('edit_tags_value_web')}` }));
  // This browser never saw the local app, so it was not asked: "not detected yet", and Check again asks (issue 29).
  for (const name of ['install', 'launch', 'update']) {
    expect(await launcher(name).locator('button').isDisabled()).toBe(true);
    expect(await launcher(name).textContent()).toContain(en('package_page_local_not_checked'));
    const describedBy = await launcher(name).locator('button').getAttribute('aria-describedby');
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toBe(en('package_page_local_not_checked'));
  }
  expect(await launcher('local_check').getByRole('button', { name: en('package_page_local_check'), exact: true }).isEnabled()).toBe(true);
  // Linux x86: only the missing privilege is named (the instance offers cloud play).
  const cloud = await launcher('cloud_play').textContent();
  expect(cloud).not.toContain(en('package_page_cloud_unavailable'));
  expect(cloud).toContain(en('package_page_cloud_needs_privilege'));
  expect(cloud).not.toContain(en('package_page_cloud_needs_tags', { tags: '' }).slice(0, 20));
  expect(await launcher('cloud_play').locator('button').isDisabled()).toBe(true);

  await openPackage(page, webPackage, { version });
  // A web build's page needs no executable bit.
  expect(await page.locator('[data-testid="package-start-file"]').textContent()).toBe('index.html');
  const play = launcher('play').getByRole('link', { name: en('package_page_play_browser'), exact: true });
  expect(await play.getAttribute('href')).toBe(`${packagePath(webPackage, { version })}/play`);
  const webCloud = await launcher('cloud_play').textContent();
  expect(webCloud).toContain(en('package_page_cloud_needs_tags', { tags: `${en('edit_tags_group_os')}: Linux, ${en('edit_tags_group_arch')}: x86` }));
  await context.close();
});

test('Play in cloud with the cloud_play privilege: a link to the cloud-play page, which starts and stops a session', async () => {
  await grantPrivilege(e2e.server, team.developer, 'cloud_play');
  // Play in cloud is offered while a machine is online: a scripted agent calls once (it never makes an offer).
  const machine = await addMachineRecord(e2e.server.deps.db, { title: 'E2E rack' });
  await createCloudAgentClient(e2e.server.url, machine.token, { capacity: 1 }).provide();
  const { page, context } = await e2e.openSignedIn({ user: team.developer });
  const problems = watchConsole(page);
  await openPackage(page, linuxPackage, { version, branch });
  const link = page.locator('.package_launcher[data-action="cloud_play"]').getByRole('link', { name: en('package_page_cloud_play'), exact: true });
  expect(await link.getAttribute('href')).toBe(`${packagePath(linuxPackage, { version, branch })}/cloud-play`);
  await link.click();
  await page.waitForURL((url) => url.pathname === `${packagePath(linuxPackage, { version, branch })}/cloud-play`);
  await waitForScreen(page, 'page_package_cloud_play');
  const root = page.locator('.package_cloud_play');
  await root.locator('h1', { hasText: en('package_cloud_play_title', { title: 'Linux build' }) }).waitFor();
  expect(await page.locator('nav.breadcrumb li').allTextContents()).toEqual(expect.arrayContaining(['stable', '1.0.0', 'Linux build', en('package_cloud_play_title', { title: 'Linux build' })]));
  const status = page.getByTestId('cloud-play-status');
  expect(await status.textContent()).toBe(en('package_cloud_play_status_not_started'));
  const video = page.getByTestId('cloud-play-video');
  expect(await video.evaluate((element: HTMLVideoElement) => [element.muted, getComputedStyle(element).objectFit])).toEqual([true, 'contain']);
  await page.getByRole('button', { name: en('package_cloud_play_start'), exact: true }).click();
  // The machine never offers: the page waits (init held on the server, then asked again).
  await root.locator('[data-state="awaiting_machine"]').first().waitFor();
  expect(await status.textContent()).toBe(en('package_cloud_play_status_awaiting_machine'));
  await page.getByRole('button', { name: en('package_cloud_play_stop'), exact: true }).click();
  await page.getByTestId('cloud-play-detail').filter({ hasText: en('package_cloud_play_reason_stopped') }).waitFor();
  expect(await page.getByRole('button', { name: en('package_cloud_play_start_again'), exact: true }).isVisible()).toBe(true);
  const violations = await seriousAccessibilityViolations(page);
  if (violations.length > 0) throw new Error(formatViolations(violations, 'cloud-play page'));
  // Leaving the page stops a live session: start one and go back.
  await page.getByRole('button', { name: en('package_cloud_play_start_again'), exact: true }).click();
  await root.locator('[data-state="awaiting_machine"]').first().waitFor();
  await page.getByRole('link', { name: en('play_page_back'), exact: true }).click();
  await waitForScreen(page, 'page_package');
  const sessions = async () => (await e2e.server.deps.db.select({ status: cloudSessions.status, reason: cloudSessions.reason }).from(cloudSessions).where(eq(cloudSessions.userId, team.developer.id))).map((row) => `${row.status}:${row.reason}`);
  for (let index = 0; index < 50 && (await sessions()).some((item) => !item.startsWith('ended')); index++) await page.waitForTimeout(100);
  expect(await sessions()).toEqual(['ended:stopped', 'ended:stopped']);
  expect(problems.filter((problem) => !problem.includes('503'))).toEqual([]);
  await context.close();
});

test('the store lists the current version’s packages by title with downloads and Play for web packages', async () => {
  const store = await makeTeam(e2e.server);
  const web = await uploadPackage(e2e.server, store.developer, store.project.id, { 'index.html': '<p>hi</p>' }, { tags: ['os:web'], entrypoint: ['index.html'], title: 'Browser build' });
  const storeBranch = await api('POST', `/api/projects/${store.project.id}/branches`, store.owner, { title: 'main' });
  await api('PATCH', `/api/projects/${store.project.id}/branches/${storeBranch.id}`, store.owner, { isPublic: true });
  const v = await api('POST', `/api/projects/${store.project.id}/versions`, store.owner, { title: '2.0', description: '', packages: [web.id] });
  await api('POST', `/api/projects/${store.project.id}/branches/${storeBranch.id}/versions/${v.id}`, store.owner);
  await makePublic(e2e.server, store.project, store.owner);

  const { page, context } = await e2e.open();
  await visit(page, `/store/${store.project.id}`, 'page_store_project');
  await page.locator('.store_downloads_summary').click({ timeout: 10_000 });
  const item = page.locator(`.store_package[data-package-id="${web.id}"]`);
  await item.locator('.store_package_title', { hasText: 'Browser build' }).waitFor({ timeout: 10_000 });
  expect(await item.locator('.tag_list li').allTextContents()).toEqual([en('edit_tags_value_web')]);
  expect(await item.getByRole('link', { name: en('package_page_play_browser'), exact: true }).getAttribute('href')).toBe(`/store/${store.project.id}/${storeBranch.id}/${web.id}/play`);
  const [download] = await Promise.all([page.waitForEvent('download'), item.getByRole('button', { name: en('package_page_download_zip'), exact: true }).click()]);
  const saved = new Uint8Array(await readFile((await download.path())!));
  expect(saved[0]).toBe(0x50);
  await context.close();
});

test('one package, one name: package page, version page, store page and sidebars agree (no version in it)', async () => {
  const store = await makeTeam(e2e.server);
  const projectBase = `/api/projects/${store.project.id}`;
  // No title of its own: the name comes from the tags ('Linux x86 64-bit'), never from a version.
  const untitled = await uploadPackage(e2e.server, store.developer, store.project.id, { 'game.x86_64': 'x' }, { tags: ['bits:64', 'os:linux', 'arch:x86'], entrypoint: ['game.x86_64'] });
  const name = 'Linux x86 64-bit';
  const storeBranch = await api('POST', `${projectBase}/branches`, store.owner, { title: 'main' });
  await api('PATCH', `${projectBase}/branches/${storeBranch.id}`, store.owner, { isPublic: true });
  const v = await api('POST', `${projectBase}/versions`, store.owner, { title: '1.0.1', description: '', packages: [untitled.id] });
  await api('POST', `${projectBase}/branches/${storeBranch.id}/versions/${v.id}`, store.owner);
  await makePublic(e2e.server, store.project, store.owner);
  const { page, context } = await e2e.openSignedIn({ user: store.tester });
  const sidebarNames = () => page.locator('aside nav', { hasText: en('package_page_sidebar') }).locator('a > bdi').allTextContents();

  for (const prefix of [`/projects/${store.project.id}/branches/${storeBranch.id}/versions/${v.id}`, `/projects/${store.project.id}/versions/${v.id}`, `/projects/${store.project.id}`]) {
    await visit(page, `${prefix}/packages/${untitled.id}`, 'page_package');
    await page.locator('main h1', { hasText: name }).waitFor({ timeout: 10_000 });
    expect(await page.locator('main h1').textContent()).toBe(name);
    await page.waitForFunction((title) => document.title === title, `${name} - Cartridge`, { timeout: 10_000 });
    expect((await page.locator('nav.breadcrumb li').allTextContents()).at(-1)).toBe(name);
    await page.locator('aside nav a', { hasText: name }).first().waitFor({ timeout: 10_000 });
    expect(await sidebarNames()).toEqual([name]);
  }

  await visit(page, `/projects/${store.project.id}/versions/${v.id}`, 'page_version');
  const list = page.locator('[data-testid="version-packages"]');
  await list.waitFor({ timeout: 10_000 });
  expect(await list.locator('a').allTextContents()).toEqual([name]);

  await visit(page, `/store/${store.project.id}`, 'page_store_project');
  await page.locator('.store_downloads_summary').click({ timeout: 10_000 });
  const item = page.locator(`.store_package[data-package-id="${untitled.id}"] .store_package_title`);
  await item.filter({ hasText: name }).waitFor({ timeout: 10_000 });
  expect(await item.textContent()).toBe(name);
  await context.close();
}, 60_000);

test('axe in light and dark theme on the package page', async () => {
  for (const theme of ['light', 'dark'] as const) {
    const { page, context } = await e2e.openSignedIn({ user: team.owner, colorScheme: theme, storage: { theme } });
    await openPackage(page, linuxPackage, { version, branch });
    await page.locator('[data-testid="archive-browser"] li[data-path="bin"] > button').click();
    await page.waitForTimeout(150);
    const violations = await seriousAccessibilityViolations(page);
    if (violations.length > 0) throw new Error(formatViolations(violations, `package page (${theme})`));
    await page.getByRole('button', { name: en('edit_tags_title'), exact: true }).click();
    await openDialog(page).waitFor();
    const dialogViolations = await seriousAccessibilityViolations(page);
    if (dialogViolations.length > 0) throw new Error(formatViolations(dialogViolations, `edit tags dialog (${theme})`));
    await context.close();
  }
}, 60_000);

test('Arabic: the package page is right-to-left and translated', async () => {
  const { page, context } = await e2e.openSignedIn({ user: team.tester, storage: { lang: rtlLanguage } });
  await visit(page, packagePath(linuxPackage, { version }), 'page_package');
  await page.locator('main h1', { hasText: 'Linux build' }).waitFor();
  expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
  await page.getByRole('button', { name: message(rtlLanguage, 'package_page_download_zip'), exact: true }).waitFor();
  expect(await page.locator('main').textContent()).toContain(message(rtlLanguage, 'package_page_local_not_checked'));
  await context.close();
});

/** How far the page scrolls sideways (0 when it fits). */
const sideways = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);

test('the packages screen (issue 29): reached from the overview, searchable, an orphan deleted after confirming; cards at 375 px, dark, Arabic, axe clean', async () => {
  const scratch = await uploadPackage(e2e.server, team.developer, team.project.id, { 'scratch/start.sh': 'echo scratch' }, { tags: ['os:linux'], entrypoint: ['scratch', 'start.sh'], title: 'Scratch build' });
  const { page, context } = await e2e.openSignedIn({ user: team.admin });
  const problems = watchConsole(page);
  await visit(page, `/projects/${team.project.id}`, 'page_project_overview');
  await page.getByRole('link', { name: en('packages_crumb'), exact: true }).click();
  await waitForScreen(page, 'page_packages');
  const table = page.getByRole('table', { name: en('packages_crumb') });
  const row = (pkg: Package) => table.locator(`tr[data-package-id="${pkg.id}"]`);
  await row(scratch).waitFor();
  // Newest first; the versions as links; the start file as a path.
  const ids = await table.locator('tbody tr').evaluateAll((rows) => rows.map((tr) => tr.getAttribute('data-package-id')));
  expect(ids[0]).toBe(scratch.id);
  expect(ids.indexOf(linuxPackage.id)).toBeLessThan(ids.indexOf(webPackage.id));
  await row(linuxPackage).getByRole('link', { name: '1.0.0', exact: true }).waitFor();
  expect(await row(linuxPackage).locator('.start_file').textContent()).toBe('bin/run.sh');
  expect(await row(scratch).textContent()).toContain(en('packages_in_no_version'));
  expect(await row(linuxPackage).getByRole('button').count()).toBe(0);

  const search = page.getByRole('searchbox', { name: en('packages_search_label'), exact: true });
  await search.fill('scratch/start');
  await page.waitForFunction(() => document.querySelectorAll('.packages_table tbody tr').length === 1);
  await search.press('Escape');
  expect(await search.inputValue()).toBe('');
  await page.waitForFunction(() => document.querySelectorAll('.packages_table tbody tr').length > 1);

  await row(scratch).getByRole('button', { name: en('packages_delete_named', { title: 'Scratch build' }), exact: true }).click();
  const confirm = page.getByRole('alertdialog', { name: en('package_page_delete_title'), exact: true });
  await confirm.getByRole('button', { name: en('package_page_delete'), exact: true }).click();
  await row(scratch).waitFor({ state: 'detached' });
  expect((await e2e.server.fetch(`${base()}/packages/${scratch.id}`, { token: team.admin.token })).status).toBe(404);
  expect(problems.filter((line) => !/favicon/.test(line))).toEqual([]);
  await context.close();

  // A phone, dark, Arabic: each package is a card with labelled cells; nothing scrolls sideways; axe clean.
  const phone = await e2e.openSignedIn({ user: team.admin, viewport: { width: 375, height: 812 }, colorScheme: 'dark', storage: { theme: 'dark', lang: rtlLanguage } });
  await visit(phone.page, `/projects/${team.project.id}/packages`, 'page_packages');
  const card = phone.page.locator(`.packages_table tr[data-package-id="${linuxPackage.id}"]`);
  await card.waitFor();
  expect(await phone.page.evaluate(() => document.documentElement.dir)).toBe('rtl');
  expect(await card.evaluate((tr) => getComputedStyle(tr).display)).toBe('block');
  const label = await card.locator('td').nth(2).evaluate((td) => getComputedStyle(td, '::before').content);
  expect(label).toBe(JSON.stringify(message(rtlLanguage, 'packages_col_versions')));
  expect(await sideways(phone.page)).toBeLessThanOrEqual(0);
  const violations = await seriousAccessibilityViolations(phone.page);
  if (violations.length > 0) throw new Error(formatViolations(violations, 'packages screen (375 px, dark, ar)'));
  await phone.context.close();
}, 90_000);

test('add existing packages (issue 29): rows tell same-named packages apart; Escape in the search clears it and keeps the dialog', async () => {
  const twin = await uploadPackage(e2e.server, team.developer, team.project.id, { 'bin/run.sh': '#!/bin/sh\necho twin\n' }, { tags: ['os:linux', 'arch:x86'], entrypoint: ['bin', 'run.sh'], title: 'Linux build' });
  const { page, context } = await e2e.openSignedIn({ user: team.developer });
  const versionDialog = await openPublishDialog(page, team.project.id, branch.id);
  await versionDialog.getByRole('button', { name: en('add_existing_button'), exact: true }).click();
  const dialog = page.locator('dialog[open]', { has: page.getByRole('listbox', { name: en('add_existing_title'), exact: true }) });
  const option = (pkg: Package) => dialog.locator(`[role="option"][data-package-id="${pkg.id}"]`);
  await option(twin).waitFor();
  expect(await option(twin).locator('[data-fact="versions"]').textContent()).toBe(en('packages_in_no_version'));
  expect(await option(linuxPackage).locator('[data-fact="versions"]').textContent()).toBe(en('add_existing_in_versions', { versions: '1.0.0' }));
  const search = dialog.getByRole('searchbox', { name: en('packages_search_label'), exact: true });
  await search.fill('1.0.0');
  await option(twin).waitFor({ state: 'detached' });
  await search.press('Escape');
  expect(await search.inputValue()).toBe('');
  await option(twin).waitFor();
  expect(await dialog.isVisible()).toBe(true);
  const violations = await seriousAccessibilityViolations(page);
  if (violations.length > 0) throw new Error(formatViolations(violations, 'add existing packages dialog'));
  // A second Escape (search empty) cancels the dialog as before.
  await search.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  await context.close();
}, 60_000);
