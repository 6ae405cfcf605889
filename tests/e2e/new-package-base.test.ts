import { afterAll, beforeAll, expect, test } from 'bun:test';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatSize } from '../../src/shared/format/size.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { uploadPackage } from '../support/packages.ts';
import { makeTeam } from '../support/projects.ts';
import type { Locator, Page } from 'playwright-core';
import { en, visit, watchConsole, type E2E } from './support/app.ts';
import { startProxiedE2E, type ProxiedE2E } from './support/proxied-e2e.ts';
import { restApi } from './support/projects.ts';
import { createNewPackage, openNewPackageDialog, openPublishDialog, publishVersion, waitUploadFinished } from './support/uploads.ts';

/**
 * Spec §2 new package dialog with several current packages: the base of an update is the current
 * package whose tags equal the selected ones (the CLI's push rule), and follows the tags; with no such
 * package the upload is a full one.
 */
let proxied: ProxiedE2E;
let e2e: E2E;
let folder: string;
beforeAll(async () => {
  proxied = await startProxiedE2E();
  e2e = proxied.e2e;
  folder = mkdtempSync(join(tmpdir(), 'npbase-'));
}, 60_000);
afterAll(async () => {
  await proxied?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const { api, base, newBranch, publish } = restApi(() => e2e.server);

/** Text that does not compress or repeat, so each file is its own chunk. */
function randomText(length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(crypto.getRandomValues(new Uint8Array(length)), (byte) => alphabet[byte % alphabet.length]).join('');
}

test('the base follows the tags: os:windows updates the windows package (its patch size), unmatched tags upload everything', async () => {
  const team = await makeTeam(e2e.server);
  // Files under 16 KiB are one chunk whatever the chunking, so the browser's upload can reuse them.
  const linuxFiles = { 'game.x86_64': randomText(9000), 'linux.txt': randomText(12_000) };
  const windowsFiles = { 'game.exe': randomText(9000), 'windows.txt': randomText(12_000) };
  const linux = await uploadPackage(e2e.server, team.owner, team.project.id, linuxFiles, { tags: ['os:linux'], title: 'Linux build' });
  const windows = await uploadPackage(e2e.server, team.owner, team.project.id, windowsFiles, { tags: ['os:windows'], title: 'Windows build', entrypoint: ['game.exe'] });
  const branch = await newBranch(team, 'main');
  const version = await api('POST', `${base(team)}/versions`, team.owner, { title: '1.0.0', description: '', packages: [linux.id, windows.id] });
  await publish(team, branch, version);
  // Not a current package: never a base, whatever its tags.
  const other = await uploadPackage(e2e.server, team.owner, team.project.id, { 'web.txt': randomText(100) }, { tags: ['os:web'], title: 'Loose web build' });

  const { page, context } = await proxied.openSignedIn(team.developer);
  const problems = watchConsole(page);
  const versionDialog = await openPublishDialog(page, team.project.id, branch.id);
  const dialog = await openNewPackageDialog(page, versionDialog);
  expect(await dialog.getByRole('heading', { level: 2 }).textContent()).toBe(en('new_package_title'));
  const tag = (value: string) => dialog.locator(`input[type="checkbox"][value="${value}"]`);
  const baseLine = dialog.getByTestId('new-package-base');
  const uploadSize = dialog.getByTestId('new-package-upload-size');

  // No tags ticked by themselves; a current package's tags come with one click on its name: an update of it.
  expect(await tag('os:linux').isChecked()).toBe(false);
  expect(await baseLine.textContent()).toBe(en('new_package_base_none'));
  await dialog.getByRole('group', { name: en('new_package_tags_from') }).getByRole('button', { name: 'Linux build', exact: true }).click();
  expect(await tag('os:linux').isChecked()).toBe(true);
  expect(await tag('os:windows').isChecked()).toBe(false);
  expect(await baseLine.textContent()).toBe(en('new_package_base_update', { title: 'Linux build' }));

  // The windows build with one file added.
  const added = randomText(5000);
  const paths = Object.entries({ ...windowsFiles, 'added.txt': added }).map(([name, content]) => {
    const path = join(folder, name);
    writeFileSync(path, content);
    return path;
  });
  await dialog.locator('[data-testid="new-package-files-input"]').setInputFiles(paths);
  await uploadSize.waitFor({ timeout: 30_000 });

  // os:linux and os:windows together: no current package has both.
  await tag('os:windows').check();
  await baseLine.getByText(en('new_package_base_none'), { exact: true }).waitFor();
  // os:windows alone: the windows package is the base, and only what it lacks is sent.
  await tag('os:linux').uncheck();
  await baseLine.getByText(en('new_package_base_update', { title: 'Windows build' }), { exact: true }).waitFor();
  expect(await baseLine.getAttribute('data-base')).toBe(windows.id);
  await uploadSize.getByText(/^Only /).waitFor({ timeout: 15_000 });
  // The update takes over the windows package's start file (issue 29).
  await dialog.locator('tr[data-path="game.exe"] .badge_accent', { hasText: en('file_tree_start_file') }).waitFor({ timeout: 10_000 });
  const patchText = (await uploadSize.textContent())!;
  const total = patchText.match(/of (.+) will/)![1]!;

  // A tag set no current package has (os:web is the loose package's, not a current one's): a full upload.
  await tag('os:windows').uncheck();
  await tag('os:web').check();
  await baseLine.getByText(en('new_package_base_none'), { exact: true }).waitFor();
  expect(await baseLine.getAttribute('data-base')).toBe('');
  await uploadSize.getByText(en('new_package_upload_size', { size: total }), { exact: true }).waitFor({ timeout: 15_000 });

  // Back to os:windows: the same patch again (its index is kept), and Create sends just that.
  await tag('os:web').uncheck();
  await tag('os:windows').check();
  await uploadSize.getByText(patchText, { exact: true }).waitFor({ timeout: 15_000 });
  const item = await createNewPackage(page, dialog, versionDialog);
  expect(await waitUploadFinished(item)).toBe('done');

  const packages = await api<Package[]>('GET', `${base(team)}/packages`, team.owner);
  const update = packages.find((item) => ![linux.id, windows.id, other.id].includes(item.id));
  expect(update).toMatchObject({ status: 'ready', tags: ['os:windows'], basePackage: windows.id, entrypoint: ['game.exe'] });
  const sentBytes = proxied.proxy.partBytes;
  expect(sentBytes).toBeLessThan(added.length + 2000);
  expect(patchText).toBe(en('new_package_patch_size', { patch: formatSize(sentBytes), total }));
  expect(problems).toEqual([]);
}, 120_000);

/** Each file's mode in the package's ZIP download, as `unzip -Z` reads the external attributes: { hopper: '-rwxr-xr-x' }. */
async function zipModes(team: Awaited<ReturnType<typeof makeTeam>>, packageId: string): Promise<Record<string, string>> {
  const { url } = await api<{ url: string }>('GET', `${base(team)}/packages/${packageId}/download?filter=zip`, team.owner);
  const path = join(folder, `${packageId}.zip`);
  writeFileSync(path, new Uint8Array(await (await fetch(new URL(url, e2e.server.url))).arrayBuffer()));
  const modes: Record<string, string> = {};
  for (const line of Bun.spawnSync(['unzip', '-Z', path]).stdout.toString().split('\n')) {
    const match = /^(-[rwx-]{9})\s.*\s(\S+)$/.exec(line);
    if (match) modes[match[2]!] = match[1]!;
  }
  return modes;
}

/** Picks the build folder through 'Add folder' (every file without a mode, as browsers give them) and lifts its contents to the top. */
async function pickBuild(dialog: Locator, path: string): Promise<void> {
  await dialog.locator('[data-testid="new-package-folder-input"]').setInputFiles(path);
  const single = dialog.locator('.package_checks_item[data-code="single_root_directory"]');
  await single.getByRole('button', { name: en('package_check_fix_explode_root'), exact: true }).click();
  await dialog.locator('tr[data-path="hopper"]').waitFor();
}

const executableBadge = (dialog: Locator, path: string) => dialog.locator(`tr[data-path="${path}"] .file_tree_badge`, { hasText: en('file_tree_executable') });

async function chooseStartFile(dialog: Locator, name: string): Promise<void> {
  const notSet = dialog.locator('.package_checks_item[data-code="entrypoint_not_set"]');
  await notSet.getByRole('combobox').selectOption({ label: name });
  await notSet.getByRole('button', { name: en('package_check_fix_set_entrypoint'), exact: true }).click();
}

async function uploadThrough(page: Page, versionDialog: Locator, dialog: Locator): Promise<void> {
  const item = await createNewPackage(page, dialog, versionDialog);
  expect(await waitUploadFinished(item)).toBe('done');
  await publishVersion(page, versionDialog);
}

test('issue 29: a browser upload of a folder with an extensionless ELF and a #! script publishes them 0755, and so does a delta update (a bit set by hand comes from the base)', async () => {
  const team = await makeTeam(e2e.server);
  const branch = await newBranch(team, 'main');
  const build = join(folder, 'hopper-build');
  mkdirSync(build);
  copyFileSync('/bin/true', join(build, 'hopper'));
  writeFileSync(join(build, 'start'), '#!/bin/sh\nexec "$(dirname "$0")/hopper" "$@"\n');
  // No header says it is a program: the developer marks it by hand, once.
  writeFileSync(join(build, 'run-game'), randomText(200));
  writeFileSync(join(build, 'level.pck'), randomText(12_000));
  for (const name of readdirSync(build)) chmodSync(join(build, name), 0o644);

  const { page } = await proxied.openSignedIn(team.developer);
  const problems = watchConsole(page);
  let versionDialog = await openPublishDialog(page, team.project.id, branch.id);
  let dialog = await openNewPackageDialog(page, versionDialog);
  await pickBuild(dialog, build);
  // Known by their first bytes, marked without a click; the data is not.
  await executableBadge(dialog, 'hopper').waitFor();
  await executableBadge(dialog, 'start').waitFor();
  expect(await executableBadge(dialog, 'level.pck').count()).toBe(0);
  expect(await executableBadge(dialog, 'run-game').count()).toBe(0);
  // Offered as start file although nothing in its name says program; its header names the tags.
  await chooseStartFile(dialog, 'hopper');
  const header = dialog.locator('.package_checks_item[data-code="header_suggests_tag"]');
  await header.getByRole('button', { name: en('package_check_fix_add_tags_other', { tags: 'os:linux, arch:x86, bits:64' }), exact: true }).click();
  const runGame = dialog.locator('tr[data-path="run-game"]');
  await runGame.getByRole('button', { name: en('row_menu_label', { name: 'run-game' }), exact: true }).click();
  await runGame.getByRole('menuitemcheckbox', { name: en('file_tree_executable') }).click();
  await executableBadge(dialog, 'run-game').waitFor();
  await dialog.getByText(en('new_package_checks_ok'), { exact: true }).waitFor();
  await uploadThrough(page, versionDialog, dialog);

  const [first] = await api<Package[]>('GET', `${base(team)}/packages`, team.owner);
  expect(first).toMatchObject({ tags: ['os:linux', 'arch:x86', 'bits:64'], entrypoint: ['hopper'], basePackage: null, status: 'ready' });
  const executable = '-rwxr-xr-x';
  const plain = '-rw-r--r--';
  expect(await zipModes(team, first!.id)).toEqual({ hopper: executable, 'level.pck': plain, 'run-game': executable, start: executable });
  // The package page says nothing against its start file.
  await visit(page, `/projects/${team.project.id}/packages/${first!.id}`, 'page_package');
  expect(await page.locator('[data-testid="package-start-file"]').textContent()).toBe('hopper');

  // The next build: new level data, the same programs, again without any mode.
  writeFileSync(join(build, 'level.pck'), randomText(12_000));
  chmodSync(join(build, 'level.pck'), 0o644);
  proxied.proxy.reset();
  versionDialog = await openPublishDialog(page, team.project.id, branch.id);
  dialog = await openNewPackageDialog(page, versionDialog);
  await dialog.getByRole('group', { name: en('new_package_tags_from') }).getByRole('button', { name: first!.title, exact: true }).click();
  await dialog.getByTestId('new-package-base').getByText(en('new_package_base_update', { title: first!.title }), { exact: true }).waitFor();
  await pickBuild(dialog, build);
  // run-game's bit comes from the base package: nobody clicked it this time.
  await executableBadge(dialog, 'run-game').waitFor({ timeout: 15_000 });
  await executableBadge(dialog, 'hopper').waitFor();
  await executableBadge(dialog, 'start').waitFor();
  expect(await executableBadge(dialog, 'level.pck').count()).toBe(0);
  // The base's start file is taken over: nothing to choose again (issue 29).
  await dialog.locator('tr[data-path="hopper"] .badge_accent', { hasText: en('file_tree_start_file') }).waitFor();
  await dialog.getByText(en('new_package_checks_ok'), { exact: true }).waitFor();
  await dialog.getByTestId('new-package-upload-size').getByText(/^Only /).waitFor({ timeout: 15_000 });
  await uploadThrough(page, versionDialog, dialog);

  const update = (await api<Package[]>('GET', `${base(team)}/packages`, team.owner)).find((item) => item.id !== first!.id)!;
  expect(update).toMatchObject({ basePackage: first!.id, status: 'ready', entrypoint: ['hopper'] });
  // A delta: the programs' chunks were not sent again.
  expect(proxied.proxy.partBytes).toBeLessThan(20_000);
  expect(await zipModes(team, update.id)).toEqual({ hopper: executable, 'level.pck': plain, 'run-game': executable, start: executable });
  expect(problems).toEqual([]);
}, 180_000);
