import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { makeTeam, type Team } from '../support/projects.ts';
import { startTestProxy, type TestProxy } from '../support/http-proxy.ts';
import { noise } from '../support/noise.ts';
import { addSessionCookie, en, startE2E, type E2E } from './support/app.ts';
import { restApi } from './support/projects.ts';
import { createNewPackage, openNewPackageDialog, openPublishDialog, waitUploadFinished } from './support/uploads.ts';

/**
 * Spec §4: a new package removed from the new version dialog, or the dialog closed, while its upload
 * runs: the package record the server already made is deleted and the upload's resume state is
 * forgotten. A package already uploaded stays when removed from the list.
 *
 * The page is opened through the test proxy (PUBLIC_URL names it, so part PUTs pass through it), which
 * holds part uploads back so that an upload is still running when the test cancels it.
 */
const PART_SIZE = 1024 * 1024;
const SLOW_PARTS_MS = 3000;
let e2e: E2E;
let proxy: TestProxy;
let folder: string;

beforeAll(async () => {
  proxy = startTestProxy();
  e2e = await startE2E({ PUBLIC_URL: proxy.url, UPLOAD_PART_SIZE: String(PART_SIZE) });
  proxy.target = e2e.server.url;
  folder = mkdtempSync(join(tmpdir(), 'upcancel-'));
}, 60_000);
afterAll(async () => {
  await e2e?.close();
  proxy?.stop();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const { api, base, newBranch } = restApi(() => e2e.server);

function writeFile(name: string, content: Uint8Array | string): string {
  const path = join(folder, name);
  writeFileSync(path, content);
  return path;
}

const packageIds = async (team: Team) => (await api<Package[]>('GET', `${base(team)}/packages`, team.owner)).map((item) => item.id);

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

/** New package → the file picked → Create (its checks' warnings do not block it); returns its list item. */
async function startUpload(page: Page, versionDialog: Locator, path: string): Promise<Locator> {
  const dialog = await openNewPackageDialog(page, versionDialog);
  await dialog.locator('[data-testid="new-package-files-input"]').setInputFiles(path);
  return createNewPackage(page, dialog, versionDialog);
}

/** The record the running upload made: the project's one package in 'uploading'. */
async function uploadingRecord(team: Team, known: string[]): Promise<string> {
  return waitFor('the upload to create its package record', async () => {
    const packages = await api<Package[]>('GET', `${base(team)}/packages`, team.owner);
    return packages.find((item) => item.status === 'uploading' && !known.includes(item.id))?.id;
  });
}

const resumeKeys = (page: Page) => page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('upload_resume:')));

test('removing a running upload, or closing the dialog, deletes its package record; an uploaded package stays', async () => {
  const team = await makeTeam(e2e.server);
  const branch = await newBranch(team, 'main');
  const context = await e2e.browser.newContext({ locale: 'en-US', baseURL: proxy.url });
  await addSessionCookie(context, proxy.url, team.owner);
  const page = await context.newPage();
  // Every package DELETE the page (its upload worker) sends.
  const deleted: string[] = [];
  context.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() === 'DELETE' && path.startsWith(`${base(team)}/packages/`)) deleted.push(path.split('/').pop()!);
  });
  const big = writeFile('big.bin', noise(8 * PART_SIZE, 31));

  // Removed from the list while its parts upload.
  proxy.partDelayMs = SLOW_PARTS_MS;
  const dialog = await openPublishDialog(page, team.project.id, branch.id);
  const removed = await startUpload(page, dialog, big);
  const first = await uploadingRecord(team, []);
  await removed.locator('xpath=self::*[@data-status="splitting" or @data-status="uploading"]').waitFor({ timeout: 30_000 });
  // The upload is resumable while it runs.
  await waitFor('the resume state', async () => ((await resumeKeys(page)).length === 1 ? true : undefined));
  await removed.getByRole('button', { name: en('upload_remove'), exact: true }).click();
  await waitFor('the removed upload’s record to go', async () => (!(await packageIds(team)).includes(first) ? true : undefined));
  expect((await e2e.server.fetch(`${base(team)}/packages/${first}`, { token: team.owner.token })).status).toBe(404);
  await waitFor('the resume state to be forgotten', async () => ((await resumeKeys(page)).length === 0 ? true : undefined));

  // Uploaded, then removed from the list: the package stays (it may already be in use).
  proxy.partDelayMs = 0;
  const small = await startUpload(page, dialog, writeFile('index.html', '<!doctype html><title>Kept</title>'));
  expect(await waitUploadFinished(small)).toBe('done');
  const kept = (await packageIds(team)).find((id) => id !== first)!;
  await small.getByRole('button', { name: en('upload_remove'), exact: true }).click();
  expect(await dialog.locator('.upload_item').count()).toBe(0);

  // The dialog cancelled while an upload runs.
  proxy.partDelayMs = SLOW_PARTS_MS;
  const running = await startUpload(page, dialog, big);
  const second = await uploadingRecord(team, [kept]);
  await running.locator('xpath=self::*[@data-status="splitting" or @data-status="uploading"]').waitFor({ timeout: 30_000 });
  await dialog.getByRole('button', { name: en('dialog_cancel'), exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  await waitFor('the cancelled dialog’s upload record to go', async () => (!(await packageIds(team)).includes(second) ? true : undefined));
  await waitFor('the resume state to be forgotten', async () => ((await resumeKeys(page)).length === 0 ? true : undefined));

  // The kept package was never asked to go: the worker handles cancels in order, and the last one is done.
  expect(deleted).toEqual([first, second]);
  expect(await api<Package>('GET', `${base(team)}/packages/${kept}`, team.owner)).toMatchObject({ status: 'ready' });
  expect(await packageIds(team)).toEqual([kept]);
  proxy.partDelayMs = 0;
  await context.close();
}, 180_000);
