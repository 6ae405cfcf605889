import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { formatSize } from '../../src/shared/format/size.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import type { TestUser } from '../support/accounts.ts';
import { makeTeam, type Team } from '../support/projects.ts';
import { startTestProxy, type TestProxy } from '../support/http-proxy.ts';
import { noise } from '../support/noise.ts';
import { addSessionCookie, en, startE2E, watchConsole, type E2E } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';
import { createNewPackage, openNewPackageDialog, openPublishDialog as openBranchPublishDialog, publishVersion as publish, waitUploadFinished } from './support/uploads.ts';

/**
 * Spec §2/§4 packages in the browser: branch page → Publish new version → New package (files picked
 * through the dialog's input) → the upload runs in the upload worker → Publish; the ZIP holds what was
 * picked; an update sends only its patch; add-existing; a big upload in the worker.
 *
 * The page is opened through a counting proxy (PUBLIC_URL names it, so part PUTs pass through it too):
 * it tells how many part bytes the server received.
 */
const PART_SIZE = 1024 * 1024;
let e2e: E2E;
let proxy: TestProxy;
let folder: string;

beforeAll(async () => {
  proxy = startTestProxy();
  e2e = await startE2E({ PUBLIC_URL: proxy.url, UPLOAD_PART_SIZE: String(PART_SIZE) });
  proxy.target = e2e.server.url;
  folder = mkdtempSync(join(tmpdir(), 'uplw-'));
}, 60_000);
afterAll(async () => {
  await e2e?.close();
  proxy?.stop();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

type Item = { id: string; title: string };

async function api<T = Item>(method: string, path: string, user: TestUser, json?: unknown): Promise<T> {
  const response = await e2e.server.fetch(path, { method, token: user.token, json });
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Writes files into a fresh folder of the test's temp folder; returns their paths. */
function writeFiles(name: string, files: Record<string, Uint8Array | string>): string[] {
  const dir = join(folder, name);
  rmSync(dir, { recursive: true, force: true });
  return Object.entries(files).map(([file, content]) => {
    const path = join(dir, file);
    Bun.spawnSync(['mkdir', '-p', join(path, '..')]);
    writeFileSync(path, content);
    return path;
  });
}

/** A signed-in page on the proxy's origin (the session cookie is the server's, sent through the proxy). */
async function openThroughProxy(user: TestUser): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await e2e.browser.newContext({ locale: 'en-US', colorScheme: 'light', viewport: { width: 1280, height: 900 }, baseURL: proxy.url });
  await addSessionCookie(context, proxy.url, user);
  const page = await context.newPage();
  return { context, page, problems: watchConsole(page) };
}

const openPublishDialog = (page: Page, team: Team, branch: Item): Promise<Locator> => openBranchPublishDialog(page, team.project.id, branch.id);

/** The new package dialog on top of the version dialog: files picked, every check fixed, Create. */
async function addNewPackage(page: Page, versionDialog: Locator, paths: string[], options: { beforeCreate?: (dialog: Locator) => Promise<void> } = {}): Promise<Locator> {
  const dialog = await openNewPackageDialog(page, versionDialog);
  await dialog.locator('[data-testid="new-package-files-input"]').setInputFiles(paths);
  await dialog.locator('[data-testid="new-package-upload-size"]').waitFor({ timeout: 30_000 });
  // Fix every warning with its one-click fix (start file, tags) until none is left.
  for (let round = 0; round < 5; round++) {
    if (await dialog.getByText(en('new_package_checks_ok'), { exact: true }).isVisible()) break;
    const first = dialog.locator('.package_checks_item').first();
    // The start file: index.html (the list may offer others first).
    if ((await first.locator('select').count()) > 0) await first.locator('select').selectOption({ label: 'index.html' });
    await first.locator('button').click();
    await page.waitForTimeout(100);
  }
  await dialog.getByText(en('new_package_checks_ok'), { exact: true }).waitFor();
  return createNewPackage(page, dialog, versionDialog, options);
}

async function waitUploaded(item: Locator, timeout = 60_000): Promise<void> {
  expect(await waitUploadFinished(item, timeout)).toBe('done');
}

type ApiVersion = Item & { packages?: unknown };

async function currentPackages(team: Team): Promise<Package[]> {
  const branches = await api<(Item & { currentVersion: { version: string } | null })[]>('GET', `/api/projects/${team.project.id}/branches`, team.owner);
  const version = branches[0]!.currentVersion!.version;
  return api<Package[]>('GET', `/api/projects/${team.project.id}/versions/${version}/packages`, team.owner);
}

/** The package's ZIP through its signed download URL, unpacked by Python's zipfile: path → bytes (hex). */
async function zipContents(team: Team, packageId: string): Promise<Record<string, string>> {
  const { url } = await api<{ url: string }>('GET', `/api/projects/${team.project.id}/packages/${packageId}/download?filter=zip`, team.owner);
  const response = await fetch(url.replace(proxy.url, e2e.server.url));
  expect(response.status).toBe(200);
  const zipPath = join(folder, `${packageId}.zip`);
  writeFileSync(zipPath, new Uint8Array(await response.arrayBuffer()));
  const script = 'import json,sys,zipfile\nz=zipfile.ZipFile(sys.argv[1])\nprint(json.dumps({i.filename: z.read(i).hex() for i in z.infolist() if not i.is_dir()}))';
  const result = Bun.spawnSync(['python3', '-c', script, zipPath]);
  if (result.exitCode !== 0) throw new Error(result.stderr.toString());
  return JSON.parse(result.stdout.toString()) as Record<string, string>;
}

const hex = (content: Uint8Array | string) => Buffer.from(typeof content === 'string' ? new TextEncoder().encode(content) : content).toString('hex');

test('new package: picked, uploaded in the worker, published; the ZIP holds the files; an update sends only its patch', async () => {
  const team = await makeTeam(e2e.server);
  const branch = await api('POST', `/api/projects/${team.project.id}/branches`, team.owner, { title: 'main' });
  const { context, page, problems } = await openThroughProxy(team.owner);
  const files = { 'index.html': '<!doctype html><title>Game</title><script src="game.js"></script>', 'game.js': 'console.log("v1")', 'data/level.bin': noise(2_500_000, 7) };

  let dialog = await openPublishDialog(page, team, branch);
  let item = await addNewPackage(page, dialog, writeFiles('v1', files));
  // Statuses show while it runs; the work happens in the upload worker (its own script).
  await item.locator('.upload_status_text').waitFor();
  // Named as every page will name the package (src/shared/packages/package-name.ts), not by raw tags.
  const uploadingName = await item.locator('.upload_title').textContent();
  expect(uploadingName).not.toContain(':');
  await dialog.locator('.upload_packages[data-upload-worker="on"]').waitFor({ timeout: 20_000 });
  await waitUploaded(item);
  expect(await item.locator('.upload_status_text').textContent()).toBe(en('upload_status_done'));
  await publish(page, dialog);

  let packages = await currentPackages(team);
  expect(packages).toHaveLength(1);
  const first = packages[0]!;
  expect(first.status).toBe('ready');
  expect(first.entrypoint).toEqual(['index.html']);
  expect(first.title).toBe(uploadingName!);
  const zip = await zipContents(team, first.id);
  // Folders of the picked files are flattened by the input (webkitRelativePath is empty): file names only.
  expect(Object.keys(zip).sort()).toEqual(['game.js', 'index.html', 'level.bin']);
  expect(zip['index.html']).toBe(hex(files['index.html']));
  expect(zip['game.js']).toBe(hex(files['game.js']));
  expect(zip['level.bin']).toBe(hex(files['data/level.bin']));

  // An update of the same package: one file changed, the big one kept. Only the patch travels.
  dialog = await openPublishDialog(page, team, branch);
  let shownPatch = '';
  const v2 = { ...files, 'game.js': 'console.log("v2, a little longer")' };
  item = await addNewPackage(page, dialog, writeFiles('v2', v2), {
    beforeCreate: async (newPackage) => {
      await newPackage.getByText(/Only .* will be uploaded\./).waitFor({ timeout: 20_000 });
      shownPatch = (await newPackage.locator('[data-testid="new-package-upload-size"]').textContent()) ?? '';
    },
  });
  proxy.partBytes = 0;
  await waitUploaded(item);
  await publish(page, dialog);
  expect(proxy.partBytes).toBeGreaterThan(0);
  expect(proxy.partBytes).toBeLessThan(100_000);
  expect(shownPatch).toBe(en('new_package_patch_size', { patch: formatSize(proxy.partBytes, 'en'), total: shownPatch.match(/of (.*) will/)![1]! }));
  packages = await currentPackages(team);
  expect(packages).toHaveLength(1);
  expect(packages[0]!.id).not.toBe(first.id);
  expect((await zipContents(team, packages[0]!.id))['game.js']).toBe(hex(v2['game.js']));

  // Add existing: the first package joins a new version without any upload.
  dialog = await openPublishDialog(page, team, branch);
  await dialog.getByRole('button', { name: en('add_existing_button'), exact: true }).click();
  const existing = page.locator('dialog[open]', { has: page.getByRole('listbox', { name: en('add_existing_title'), exact: true }) });
  await existing.getByRole('option').first().waitFor();
  expect(await existing.getByRole('option').count()).toBe(2);
  // Both packages carry the same default title; the last option is one of them.
  await existing.getByRole('option').last().click();
  expect(await existing.getByRole('option').last().getAttribute('aria-selected')).toBe('true');
  await existing.getByRole('button', { name: en('add_existing_add'), exact: true }).click();
  await existing.waitFor({ state: 'detached' });
  expect(await dialog.locator('.upload_item').getAttribute('data-status')).toBe('existing');
  proxy.partBytes = 0;
  await publish(page, dialog);
  const chosen = (await currentPackages(team)).map((item) => item.id);
  expect(chosen).toHaveLength(1);
  expect([first.id, packages[0]!.id]).toContain(chosen[0]!);
  expect(proxy.partBytes).toBe(0);
  expect(problems.filter((line) => !/favicon/.test(line))).toEqual([]);
  await context.close();
}, 180_000);

// How long the page's longest task is during an upload is a speed figure: it belongs to a benchmark,
// not to this test, which a loaded CI machine would make flaky.
test('a ~40 MB upload runs in the worker; axe on the dialog while it runs', async () => {
  const team = await makeTeam(e2e.server);
  const branch = await api('POST', `/api/projects/${team.project.id}/branches`, team.owner, { title: 'main' });
  const { context, page } = await openThroughProxy(team.owner);
  const big = { 'index.html': '<!doctype html><title>Big</title>', 'assets/a.bin': noise(20_000_000, 11), 'assets/b.bin': noise(20_000_000, 12) };
  const dialog = await openPublishDialog(page, team, branch);
  const item = await addNewPackage(page, dialog, writeFiles('big', big));
  await dialog.locator('.upload_packages[data-upload-worker="on"]').waitFor({ timeout: 20_000 });
  await item.locator('xpath=self::*[@data-status="splitting" or @data-status="uploading"]').waitFor({ timeout: 60_000 });
  const violations = await seriousAccessibilityViolations(page);
  expect(await item.getAttribute('data-status')).not.toBe('done');
  expect(formatViolations(violations, 'version dialog uploading')).toBe('version dialog uploading: no serious or critical violations');
  await waitUploaded(item, 120_000);
  await publish(page, dialog);
  const [pkg] = await currentPackages(team);
  expect(pkg!.size).toBe(40_000_000 + big['index.html'].length);
  await context.close();
}, 240_000);

test('the worker script is one self-contained file, revalidated by ETag and served gzip-compressed', async () => {
  const response = await fetch(`${e2e.server.url}/upload-worker.js`, { headers: { 'accept-encoding': 'identity' } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/javascript;charset=utf-8');
  expect(response.headers.get('cache-control')).toBe('no-cache');
  const etag = response.headers.get('etag');
  expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
  const code = await response.text();
  // Nothing to load besides itself: no static or dynamic imports, no exports, no import.meta.
  expect(code).not.toMatch(/^\s*import[\s{*]|\bimport\(|import\.meta|^\s*export\s/m);
  expect(code).toContain("type:\"ready\"");
  const again = await fetch(`${e2e.server.url}/upload-worker.js`, { headers: { 'if-none-match': etag! } });
  expect(again.status).toBe(304);
  const gzipped = await fetch(`${e2e.server.url}/upload-worker.js`, { headers: { 'accept-encoding': 'gzip' }, decompress: false } as RequestInit);
  expect(gzipped.headers.get('content-encoding')).toBe('gzip');
  expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gzipped.arrayBuffer())))).toBe(code);
});

/** Opens the publish dialog and adds a one-file package; returns the upload's list item. */
async function smallUpload(page: Page, team: Team, branch: Item, name: string): Promise<{ dialog: Locator; item: Locator }> {
  const dialog = await openPublishDialog(page, team, branch);
  const item = await addNewPackage(page, dialog, writeFiles(name, { 'index.html': `<!doctype html><title>${name}</title>` }));
  return { dialog, item };
}

test('without Web Workers the upload runs on the page, and says so on the console', async () => {
  const team = await makeTeam(e2e.server);
  const branch = await api('POST', `/api/projects/${team.project.id}/branches`, team.owner, { title: 'main' });
  const { context, page } = await openThroughProxy(team.owner);
  await context.addInitScript(() => void delete (globalThis as { Worker?: unknown }).Worker);
  const warnings: string[] = [];
  page.on('console', (entry) => void (entry.type() === 'warning' && warnings.push(entry.text())));
  const { dialog, item } = await smallUpload(page, team, branch, 'inline');
  await waitUploaded(item);
  expect(await dialog.locator('.upload_packages').getAttribute('data-upload-worker')).toBe('main_thread');
  expect(warnings.some((text) => text.includes('Uploads run on the main thread') && text.includes('no Web Workers'))).toBe(true);
  await publish(page, dialog);
  expect(await currentPackages(team)).toHaveLength(1);
  await context.close();
});

test('a worker that does not start fails the upload loudly instead of freezing the page', async () => {
  const team = await makeTeam(e2e.server);
  const branch = await api('POST', `/api/projects/${team.project.id}/branches`, team.owner, { title: 'main' });
  const { context, page } = await openThroughProxy(team.owner);
  // A browser with module workers whose worker script is missing (a broken deployment).
  await context.addInitScript(() => {
    const Real = globalThis.Worker;
    globalThis.Worker = class extends Real {
      constructor(_url: string | URL, options?: WorkerOptions) {
        super('/no-such-upload-worker.js', options);
      }
    };
  });
  const errors: string[] = [];
  page.on('console', (entry) => void (entry.type() === 'error' && errors.push(entry.text())));
  const { dialog, item } = await smallUpload(page, team, branch, 'broken');
  await item.locator('xpath=self::*[@data-status="errored"]').waitFor({ timeout: 20_000 });
  expect(await dialog.locator('.upload_packages').getAttribute('data-upload-worker')).toBe('failed');
  expect(errors.some((text) => text.includes('The upload worker did not start'))).toBe(true);
  expect(await item.locator('.upload_status_text').textContent()).toBe(en('upload_status_errored'));
  await context.close();
});
