import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatSize } from '../../src/shared/format/size.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { uploadPackage } from '../support/packages.ts';
import { makeTeam } from '../support/projects.ts';
import { en, watchConsole, type E2E } from './support/app.ts';
import { startProxiedE2E, type ProxiedE2E } from './support/proxied-e2e.ts';
import { restApi } from './support/projects.ts';
import { createNewPackage, openNewPackageDialog, openPublishDialog, waitUploadFinished } from './support/uploads.ts';

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
  const windows = await uploadPackage(e2e.server, team.owner, team.project.id, windowsFiles, { tags: ['os:windows'], title: 'Windows build' });
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
  expect(update).toMatchObject({ status: 'ready', tags: ['os:windows'], basePackage: windows.id });
  const sentBytes = proxied.proxy.partBytes;
  expect(sentBytes).toBeLessThan(added.length + 2000);
  expect(patchText).toBe(en('new_package_patch_size', { patch: formatSize(sentBytes), total }));
  expect(problems).toEqual([]);
}, 120_000);
