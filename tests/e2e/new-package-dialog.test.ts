import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Locator, Page } from 'playwright-core';
import { uploadPackage } from '../support/packages.ts';
import { makeTeam, type Team } from '../support/projects.ts';
import { formatSize } from '../../src/shared/format/size.ts';
import { en, message, rtlLanguage, startE2E, visit, watchConsole, type E2E } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';
import { restApi, type Item } from './support/projects.ts';
import { startProxiedE2E } from './support/proxied-e2e.ts';

/** Spec §2 'new package' dialog, §4 upload tree edits, §5 package checks, in Chromium through the branch page. */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

const { api } = restApi(() => e2e.server);

/** Branch page → Publish new version → New package: the dialog as a developer reaches it. */
async function openNewPackage(page: Page, team: Team, existing?: Item): Promise<Locator> {
  const branch: Item = existing ?? (await api('POST', `/api/projects/${team.project.id}/branches`, team.owner, { title: `main-${Math.random().toString(36).slice(2, 6)}` }));
  await visit(page, `/projects/${team.project.id}/branches/${branch.id}`, 'page_branch');
  await page.getByRole('button', { name: en('branch_publish_new'), exact: true }).click();
  const versionDialog = page.locator('dialog[open]').first();
  await versionDialog.getByRole('button', { name: en('upload_new_package'), exact: true }).click();
  const dialog = page.locator('dialog[open]', { has: page.getByRole('heading', { name: en('new_package_title'), exact: true }) });
  await dialog.waitFor({ timeout: 10_000 });
  return dialog;
}

/**
 * Drops a folder as the browser hands one over: a real FileSystemDirectoryEntry (made in Chromium's
 * temporary file system) behind the drop's item. Scripts cannot put entries into a DataTransfer, so
 * the event's dataTransfer is the one object built here.
 */
async function dropFolder(page: Page, target: Locator, name: string, files: Record<string, string>): Promise<void> {
  await target.evaluate(
    async (element, { name, files }) => {
      type Entry = { name: string; isFile: boolean; isDirectory: boolean };
      type Dir = Entry & {
        getDirectory(path: string, options: object, ok: (dir: Dir) => void, fail: (error: unknown) => void): void;
        getFile(path: string, options: object, ok: (file: { createWriter(ok: (writer: { onwriteend: () => void; onerror: (e: unknown) => void; write(blob: Blob): void }) => void): void }) => void, fail: (error: unknown) => void): void;
      };
      const w = window as unknown as { webkitRequestFileSystem(type: number, size: number, ok: (fs: { root: Dir }) => void, fail: (e: unknown) => void): void; TEMPORARY: number };
      const root = await new Promise<Dir>((resolve, reject) => w.webkitRequestFileSystem(w.TEMPORARY, 1 << 20, (fs) => resolve(fs.root), reject));
      const dir = (parent: Dir, path: string) => new Promise<Dir>((resolve, reject) => parent.getDirectory(path, { create: true }, resolve, reject));
      const top = await dir(root, `${name}`);
      for (const [path, text] of Object.entries(files)) {
        const parts = path.split('/');
        let current = top;
        for (const part of parts.slice(0, -1)) current = await dir(current, part);
        await new Promise<void>((resolve, reject) =>
          current.getFile(parts.at(-1)!, { create: true }, (file) => file.createWriter((writer) => {
            writer.onwriteend = () => resolve();
            writer.onerror = reject;
            writer.write(new Blob([text]));
          }), reject),
        );
      }
      const event = new DragEvent('drop', { bubbles: true, cancelable: true });
      Object.defineProperty(event, 'dataTransfer', { value: { types: ['Files'], items: [{ kind: 'file', webkitGetAsEntry: () => top, getAsFile: () => null }], files: [] } });
      element.dispatchEvent(event);
    },
    { name, files },
  );
}

/** Drops plain files with a real DataTransfer, as from a file manager. */
async function dropFiles(target: Locator, files: Record<string, string>): Promise<void> {
  const transfer = await target.page().evaluateHandle((files) => {
    const data = new DataTransfer();
    for (const [name, text] of Object.entries(files)) data.items.add(new File([text], name));
    return data;
  }, files);
  await target.dispatchEvent('dragover', { dataTransfer: transfer });
  await target.dispatchEvent('drop', { dataTransfer: transfer });
}

const rows = (dialog: Locator) => dialog.locator('tr[data-path]').evaluateAll((list) => list.map((row) => (row as HTMLElement).dataset.path));
const row = (dialog: Locator, path: string) => dialog.locator(`tr[data-path="${path}"]`);
const check = (dialog: Locator, code: string) => dialog.locator(`.package_checks_item[data-code="${code}"]`);

test('drop a generated folder, fix every check with one click, create: the package is uploaded as edited', async () => {
  const team = await makeTeam(e2e.server);
  const { page } = await e2e.openSignedIn({ user: team.developer });
  const problems = watchConsole(page);
  const dialog = await openNewPackage(page, team);
  expect(await check(dialog, 'no_files').textContent()).toContain(en('package_check_no_files'));
  expect(await dialog.getByRole('button', { name: en('new_package_create'), exact: true }).isDisabled()).toBe(true);

  const game = '<!doctype html><title>Game</title><canvas id="c"></canvas><script src="js/main.js"></script>';
  await dropFolder(page, dialog.getByTestId('file-tree'), 'build', { 'index.html': game, 'js/main.js': 'document.getElementById("c").getContext("2d").fillRect(0, 0, 10, 10);' });
  await row(dialog, 'build/index.html').waitFor({ timeout: 10_000 });
  expect(await rows(dialog)).toEqual(['build', 'build/js', 'build/index.html']);
  // Plain files dropped onto a folder row land inside it.
  await dropFiles(row(dialog, 'build/js'), { 'extra.js': 'void 0;' });
  await row(dialog, 'build/js').focus();
  await page.keyboard.press('ArrowRight');
  await row(dialog, 'build/js/extra.js').waitFor();
  expect(await dialog.getByTestId('new-package-summary').textContent()).toMatch(/^3 files, \d+ B$/);

  // Single root folder → its contents at the top.
  expect(await check(dialog, 'single_root_directory').textContent()).toContain(en('package_check_single_root_directory', { path: 'build' }));
  await check(dialog, 'single_root_directory').getByRole('button', { name: en('package_check_fix_explode_root'), exact: true }).click();
  await row(dialog, 'index.html').waitFor();
  // No start file → the likely one, index.html, is offered and chosen.
  const notSet = check(dialog, 'entrypoint_not_set');
  expect(await notSet.locator('select').inputValue()).toBe('0');
  expect(await notSet.locator('option').first().textContent()).toBe('index.html');
  await notSet.getByRole('button', { name: en('package_check_fix_set_entrypoint'), exact: true }).click();
  await row(dialog, 'index.html').getByText(en('file_tree_start_file'), { exact: true }).waitFor();
  // Each row has one menu button (issue 19): it opens from the keyboard inside the viewport, and Escape
  // closes the menu only, giving focus back to its button; the dialog stays open.
  const menuButton = row(dialog, 'index.html').getByRole('button', { name: en('row_menu_label', { name: 'index.html' }), exact: true });
  await menuButton.focus();
  await page.keyboard.press('Enter');
  const menu = page.getByRole('menu', { name: en('row_menu_label', { name: 'index.html' }) });
  await menu.waitFor();
  expect(await menuButton.getAttribute('aria-expanded')).toBe('true');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('menuitemcheckbox');
  const box = (await menu.boundingBox())!;
  expect(box.y + box.height).toBeLessThanOrEqual(800);
  expect(box.x).toBeGreaterThanOrEqual(0);
  await page.keyboard.press('ArrowDown');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(`${en('file_tree_move')}…`);
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached' });
  expect(await dialog.isVisible()).toBe(true);
  expect(await menuButton.evaluate((element) => element === document.activeElement)).toBe(true);
  // A web page needs os:web.
  await check(dialog, 'html_needs_web').getByRole('button', { name: en('package_check_fix_add_tags_one', { tags: 'os:web' }), exact: true }).click();
  await dialog.getByText(en('new_package_checks_ok'), { exact: true }).waitFor();
  expect(await dialog.locator('input[type="checkbox"][value="os:web"]').isChecked()).toBe(true);

  const create = dialog.getByRole('button', { name: en('new_package_create'), exact: true });
  await dialog.getByTestId('new-package-upload-size').waitFor();
  expect(await create.isDisabled()).toBe(false);
  const a11y = await seriousAccessibilityViolations(page);
  expect(a11y, formatViolations(a11y, 'new package dialog')).toEqual([]);
  await dialog.getByLabel(en('new_package_title_label'), { exact: true }).fill('Browser build');
  await create.click();
  await dialog.waitFor({ state: 'detached' });

  // The upload pipeline sends what the dialog produced: the edited tree, the start file, the tag, the title.
  const deadline = Date.now() + 30_000;
  let created: { title: string; tags: string[]; entrypoint: string[] | null; status: string } | undefined;
  while (Date.now() < deadline && created?.status !== 'ready') {
    created = (await api<(typeof created & {})[]>('GET', `/api/projects/${team.project.id}/packages`, team.owner)).find((item) => item.title === 'Browser build');
    await Bun.sleep(250);
  }
  expect(created).toMatchObject({ tags: ['os:web'], entrypoint: ['index.html'], status: 'ready' });
  expect(problems).toEqual([]);
}, 90_000);

test('the file tree: the Size header sits over the sizes, in both directions (issue 29)', async () => {
  const team = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: team.developer });
  const dialog = await openNewPackage(page, team);
  await dropFiles(dialog.getByTestId('file-tree'), { 'game.bin': 'x'.repeat(123_456), 'readme.txt': 'hi' });
  await row(dialog, 'readme.txt').waitFor({ timeout: 10_000 });
  for (const dir of ['ltr', 'rtl']) {
    // The styles follow the document's direction (Arabic sets rtl): the same table, drawn both ways.
    await page.evaluate((value) => (document.documentElement.dir = value), dir);
    const measured = await dialog.locator('.file_tree_grid').evaluate((table) => {
      const edge = (element: Element, side: 'left' | 'right') => {
        // Where the words are, not the cell: a range around the cell's text.
        const range = document.createRange();
        range.selectNodeContents(element);
        return range.getBoundingClientRect()[side];
      };
      const side = document.documentElement.dir === 'rtl' ? 'left' : 'right';
      const header = table.querySelector('th.file_tree_size')!;
      const sizes = [...table.querySelectorAll('td.file_tree_size')];
      return { header: edge(header, side), sizes: sizes.map((cell) => edge(cell, side)) };
    });
    expect(measured.sizes).toHaveLength(2);
    // The header ends where the sizes end (at the cells' end side), to the pixel.
    for (const size of measured.sizes) expect({ dir, off: Math.abs(size - measured.header) <= 1 }).toEqual({ dir, off: true });
  }
  await context.close();
}, 60_000);

test('a folder with index.html and game.js: index.html is offered, and one-click fixes end as a Web package only (issue 13)', async () => {
  const team = await makeTeam(e2e.server);
  const { page } = await e2e.openSignedIn({ user: team.developer });
  const dialog = await openNewPackage(page, team);
  await dropFolder(page, dialog.getByTestId('file-tree'), 'game', { 'game.js': 'void 0;', 'index.html': '<!doctype html><script src="game.js"></script>' });
  await check(dialog, 'single_root_directory').getByRole('button', { name: en('package_check_fix_explode_root'), exact: true }).click();
  await row(dialog, 'index.html').waitFor();
  // game.js sorts first, but a web build starts at its page.
  const notSet = check(dialog, 'entrypoint_not_set');
  expect(await notSet.locator('select option:checked').textContent()).toBe('index.html');
  await notSet.getByRole('button', { name: en('package_check_fix_set_entrypoint'), exact: true }).click();
  await check(dialog, 'html_needs_web').getByRole('button', { name: en('package_check_fix_add_tags_one', { tags: 'os:web' }), exact: true }).click();
  await dialog.getByText(en('new_package_checks_ok'), { exact: true }).waitFor();
  const ticked = () => dialog.locator('input[type="checkbox"]:checked').evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).value));
  expect(await ticked()).toEqual(['os:web']);
  expect(await dialog.getByLabel(en('new_package_title_label'), { exact: true }).getAttribute('placeholder')).toBe('Web');

  // Picking the script by hand: the page is offered back, never runtime:nodejs.
  await row(dialog, 'game.js').getByRole('button', { name: en('row_menu_label', { name: 'game.js' }), exact: true }).click();
  await row(dialog, 'game.js').getByRole('menuitem', { name: en('file_tree_make_start'), exact: true }).click();
  const webScript = check(dialog, 'web_needs_page');
  await webScript.waitFor();
  expect(await webScript.textContent()).toContain(en('package_check_web_needs_page', { path: 'game.js' }));
  expect(await check(dialog, 'extension_suggests_tag').count()).toBe(0);
  expect(await webScript.locator('option').allTextContents()).toEqual(['index.html']);
  await webScript.getByRole('button', { name: en('package_check_fix_set_entrypoint'), exact: true }).click();
  await dialog.getByText(en('new_package_checks_ok'), { exact: true }).waitFor();
  expect(await ticked()).toEqual(['os:web']);
}, 60_000);

test('the dialog starts with no tags; a current package\'s tags come on request, named; a disabled Create looks disabled (issue 13)', async () => {
  const team = await makeTeam(e2e.server);
  const server = await uploadPackage(e2e.server, team.owner, team.project.id, { 'server.js': 'void 0;' }, { tags: ['runtime:nodejs'], entrypoint: ['server.js'], title: 'Server build' });
  const branch = await api('POST', `/api/projects/${team.project.id}/branches`, team.owner, { title: 'main' });
  const version = await api('POST', `/api/projects/${team.project.id}/versions`, team.owner, { title: '1.0.0', description: '', packages: [server.id] });
  await api('POST', `/api/projects/${team.project.id}/branches/${branch.id}/versions/${version.id}`, team.owner);
  const { page } = await e2e.openSignedIn({ user: team.developer });
  const dialog = await openNewPackage(page, team, branch);
  expect(await dialog.locator('input[type="checkbox"]:checked').count()).toBe(0);
  expect(await dialog.getByTestId('new-package-base').textContent()).toBe(en('new_package_base_none'));
  const from = dialog.getByRole('group', { name: en('new_package_tags_from') }).getByRole('button', { name: 'Server build', exact: true });
  expect(await from.getAttribute('aria-pressed')).toBe('false');
  await from.click();
  expect(await from.getAttribute('aria-pressed')).toBe('true');
  expect(await dialog.locator('input[type="checkbox"][value="runtime:nodejs"]').isChecked()).toBe(true);
  expect(await dialog.getByTestId('new-package-base').textContent()).toBe(en('new_package_base_update', { title: 'Server build' }));

  // No files yet: Create is disabled and looks it (no accent colour, no pointer).
  const create = dialog.getByRole('button', { name: en('new_package_create'), exact: true });
  expect(await create.isDisabled()).toBe(true);
  const look = await create.evaluate((button) => {
    const probe = document.createElement('span');
    probe.style.color = 'var(--accent)';
    document.body.append(probe);
    const accent = getComputedStyle(probe).color;
    probe.remove();
    const style = getComputedStyle(button);
    return { cursor: style.cursor, background: style.backgroundColor, accent };
  });
  expect(look.cursor).toBe('not-allowed');
  expect(look.background).not.toBe(look.accent);
}, 60_000);

test('Arabic, dark theme: right-to-left tree keys, Tab into the row, no serious accessibility problems', async () => {
  const team = await makeTeam(e2e.server);
  const { page } = await e2e.openSignedIn({ user: team.developer, colorScheme: 'dark', storage: { lang: rtlLanguage } });
  const branch = await api('POST', `/api/projects/${team.project.id}/branches`, team.owner, { title: 'rtl' });
  await visit(page, `/projects/${team.project.id}/branches/${branch.id}`, 'page_branch');
  expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
  await page.getByRole('button', { name: message(rtlLanguage, 'branch_publish_new'), exact: true }).click();
  await page.locator('dialog[open]').first().getByRole('button', { name: message(rtlLanguage, 'upload_new_package'), exact: true }).click();
  const packageDialog = page.locator('dialog[open]', { has: page.getByRole('heading', { name: message(rtlLanguage, 'new_package_title'), exact: true }) });
  await packageDialog.waitFor();
  await dropFolder(page, packageDialog.getByTestId('file-tree'), 'rtl', { 'a/run.sh': '#!/bin/sh', 'b.txt': 'b' });
  await row(packageDialog, 'rtl').waitFor();
  await row(packageDialog, 'rtl').focus();
  await page.keyboard.press('ArrowDown');
  expect(await row(packageDialog, 'rtl/a').evaluate((element) => element === document.activeElement)).toBe(true);
  // Right-to-left: ArrowLeft opens a folder.
  await page.keyboard.press('ArrowLeft');
  await row(packageDialog, 'rtl/a/run.sh').waitFor();
  expect(await row(packageDialog, 'rtl/a').getAttribute('aria-expanded')).toBe('true');
  // Tab from the row reaches its own buttons.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.closest('tr')?.dataset.path)).toBe('rtl/a');
  const a11y = await seriousAccessibilityViolations(page);
  expect(a11y, formatViolations(a11y, 'new package dialog, dark, Arabic')).toEqual([]);
}, 90_000);

/** Text that does not compress or repeat, so each file is its own chunk. */
function randomText(length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(crypto.getRandomValues(new Uint8Array(length)), (byte) => alphabet[byte % alphabet.length]).join('');
}

test('an update of the current package of the branch: the patch size shown is what the upload sends', async () => {
  // Its own server behind a counting proxy: the bytes of the part PUTs are counted where they pass.
  const proxied = await startProxiedE2E();
  try {
  const e2e = proxied.e2e;
  const { api } = restApi(() => e2e.server);
  const team = await makeTeam(e2e.server);
  // Files under 16 KiB are one chunk whatever the chunking, so the browser's upload can reuse them.
  const files = { 'index.html': `<!doctype html><p>${randomText(9000)}</p>`, 'data.txt': randomText(12_000) };
  const base = await uploadPackage(e2e.server, team.owner, team.project.id, files, { tags: ['os:web'], entrypoint: ['index.html'], title: 'Web' });
  const branch = await api('POST', `/api/projects/${team.project.id}/branches`, team.owner, { title: 'main' });
  const version = await api('POST', `/api/projects/${team.project.id}/versions`, team.owner, { title: '1.0.0', description: '', packages: [base.id] });
  await api('POST', `/api/projects/${team.project.id}/branches/${branch.id}/versions/${version.id}`, team.owner);

  const { page } = await proxied.openSignedIn(team.developer);
  const dialog = await openNewPackage(page, team, branch);
  // No tags ticked in silence: the current package's come with one click, named.
  await dialog.getByRole('group', { name: en('new_package_tags_from') }).getByRole('button', { name: 'Web', exact: true }).click();
  expect(await dialog.locator('input[type="checkbox"][value="os:web"]').isChecked()).toBe(true);
  expect(await dialog.getByTestId('new-package-base').textContent()).toBe(en('new_package_base_update', { title: 'Web' }));
  const added = randomText(5000);
  await dropFolder(page, dialog.getByTestId('file-tree'), 'update', { ...files, 'added.txt': added });
  await check(dialog, 'single_root_directory').getByRole('button', { name: en('package_check_fix_explode_root'), exact: true }).click();
  // The base's start file is taken over, nothing to choose again (issue 29).
  await dialog.locator('tr[data-path="index.html"] .badge_accent', { hasText: en('file_tree_start_file') }).waitFor();
  await dialog.getByText(en('new_package_checks_ok'), { exact: true }).waitFor();
  const shown = dialog.getByTestId('new-package-upload-size');
  await shown.getByText(/^Only /).waitFor({ timeout: 15_000 });
  const text = (await shown.textContent())!;
  await dialog.getByRole('button', { name: en('new_package_create'), exact: true }).click();
  await dialog.waitFor({ state: 'detached' });

  const deadline = Date.now() + 30_000;
  let packages: { id: string; status: string; basePackage: string | null }[] = [];
  while (Date.now() < deadline && !packages.some((item) => item.id !== base.id && item.status === 'ready')) {
    packages = await api('GET', `/api/projects/${team.project.id}/packages`, team.owner);
    await Bun.sleep(250);
  }
  const update = packages.find((item) => item.id !== base.id);
  expect(update?.status).toBe('ready');
  const sentBytes = proxied.proxy.partBytes;
  expect(sentBytes).toBeGreaterThan(added.length);
  expect(sentBytes).toBeLessThan(added.length + 2000);
  // The whole archive would be about 26 KiB; only the new file and the index travel.
  expect(text).toBe(en('new_package_patch_size', { patch: formatSize(sentBytes), total: text.match(/of (.+) will/)![1]! }));
  } finally {
    await proxied.close();
  }
}, 90_000);
