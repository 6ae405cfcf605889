import type { Locator, Page } from 'playwright-core';
import { en, visit } from './app.ts';

/**
 * The browser upload flow step by step (branch page → 'Publish new version' → 'New package' → Create →
 * the upload item → Publish), shared by the upload e2e tests and the upload benchmark.
 */

const branchPagePath = (projectId: string, branchId: string): string => `/projects/${projectId}/branches/${branchId}`;

/** Opens the branch page and its 'Publish new version' dialog; resolves with that dialog. */
export async function openPublishDialog(page: Page, projectId: string, branchId: string): Promise<Locator> {
  await visit(page, branchPagePath(projectId, branchId), 'page_branch');
  await page.getByRole('group', { name: en('branch_actions_label'), exact: true }).getByRole('button', { name: en('branch_publish_new'), exact: true }).click();
  const dialog = page.locator('dialog[open]').first();
  await dialog.waitFor();
  return dialog;
}

/** Opens the new package dialog on top of the version dialog. */
export async function openNewPackageDialog(page: Page, versionDialog: Locator): Promise<Locator> {
  await versionDialog.getByRole('button', { name: en('upload_new_package'), exact: true }).click();
  const dialog = page.locator('dialog[open].new_package_dialog');
  await dialog.waitFor();
  return dialog;
}

/**
 * Waits until Create is enabled (files added and indexed), runs `beforeCreate`, clicks Create and
 * resolves with the new upload's item in the version dialog's list.
 */
export async function createNewPackage(
  page: Page,
  dialog: Locator,
  versionDialog: Locator,
  options: { timeoutMs?: number; beforeCreate?: (dialog: Locator) => Promise<void> } = {},
): Promise<Locator> {
  const create = dialog.getByRole('button', { name: en('new_package_create'), exact: true });
  await page.waitForFunction((button) => !(button as HTMLButtonElement).disabled, await create.elementHandle(), { timeout: options.timeoutMs ?? 30_000 });
  await options.beforeCreate?.(dialog);
  await create.click();
  await dialog.waitFor({ state: 'detached' });
  return versionDialog.locator('.upload_item').last();
}

/** Waits until the upload item is done or errored; resolves with its final data-status. */
export async function waitUploadFinished(item: Locator, timeoutMs = 60_000): Promise<string | null> {
  await item.locator('xpath=self::*[@data-status="done" or @data-status="errored"]').waitFor({ timeout: timeoutMs });
  return item.getAttribute('data-status');
}

/** Publish in the version dialog: waits until it closes and the branch page shows the current version. */
export async function publishVersion(page: Page, dialog: Locator, timeoutMs = 20_000): Promise<void> {
  await dialog.getByRole('button', { name: en('version_publish'), exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: timeoutMs });
  await page.locator('[data-testid="branch-current"] a').waitFor({ timeout: 10_000 });
}
