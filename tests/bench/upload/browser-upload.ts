import type { Browser } from 'playwright-core';
import { addSessionCookie, warmUp } from '../../e2e/support/app.ts';
import { createNewPackage, openNewPackageDialog, openPublishDialog, publishVersion, waitUploadFinished } from '../../e2e/support/uploads.ts';
import type { BenchServer } from '../packages/server.ts';
import { addProbe, markProbe, readProbe, statusAt, tasksBetween, type ProbeRecord, type TaskSummary } from './page-probe.ts';

/** Everything below is in milliseconds of the page's clock unless it says otherwise. */
export type BrowserUpload = {
  /** The folder handed to the input → the dialog shows the upload size (its index, on the page's thread). */
  dialogIndexMs: number;
  dialogTasks: TaskSummary;
  /** Create click → status 'done': pack pass 1 (index) and pass 2, hashing, part uploads, finalize. */
  uploadMs: number;
  /** Status 'splitting' (package created) → 'finalizing' (last part acknowledged). */
  partsMs: number | undefined;
  /** Create click → 'splitting': draft handed to the worker, its index pass, the package record made. */
  beforePartsMs: number | undefined;
  /** 'finalizing' → 'done'. */
  finalizeMs: number | undefined;
  /** The Publish click → the dialog closed (version made and published), timed from here (Playwright's round trips included). */
  publishMs: number;
  /** Long tasks that started between the Create click and 'done'. */
  uploadTasks: TaskSummary;
  longTaskSupported: boolean;
  statuses: ProbeRecord['statuses'];
  worker: string | null;
};

export type BrowserUploadTarget = { server: BenchServer; projectId: string; branchId: string; cookie: string };

const MINUTE = 60_000;

/**
 * A signed-in Chromium page uploads `buildRoot` as a user would: branch page → Publish new version →
 * New package → the folder given to the 'Add folder' input (<input webkitdirectory>: Chromium reads
 * the files from disk, nothing is copied into this process) → the single root folder replaced by its
 * contents (the CLI packs the folder's contents too) → Create → done → Publish. Other checks are left
 * as warnings: they do not block Create, and the CLI push sets no tags or start file either.
 */
export async function uploadInBrowser(browser: Browser, target: BrowserUploadTarget, buildRoot: string, timeoutMs: number): Promise<BrowserUpload> {
  await warmUp(target.server.url);
  // The upload worker is its own bundle, built on its first request: not on the timed path.
  const worker = await fetch(new URL('/upload-worker.js', target.server.url));
  if (worker.status !== 200) throw new Error(`GET /upload-worker.js: ${worker.status}`);
  await worker.arrayBuffer();

  const context = await browser.newContext({ baseURL: target.server.url, locale: 'en-US', viewport: { width: 1280, height: 900 } });
  try {
    await addProbe(context);
    await addSessionCookie(context, target.server.url, { cookie: target.cookie });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (entry) => void (entry.type() === 'error' && problems.push(`console.error: ${entry.text()}`)));
    const withProblems = (error: unknown) => new Error(`${error instanceof Error ? error.message : String(error)}${problems.length ? `\npage problems:\n${problems.join('\n')}` : ''}`);

    try {
      const versionDialog = await openPublishDialog(page, target.projectId, target.branchId);
      const dialog = await openNewPackageDialog(page, versionDialog);
      await markProbe(page, 'files');
      await dialog.locator('[data-testid="new-package-folder-input"]').setInputFiles(buildRoot);
      await dialog.locator('[data-testid="new-package-upload-size"]').waitFor({ timeout: timeoutMs });
      await markProbe(page, 'indexed');
      const explode = dialog.locator('.package_checks_item[data-code="single_root_directory"]');
      await explode.locator('button').click({ timeout: MINUTE });
      await explode.waitFor({ state: 'detached', timeout: MINUTE });

      const item = await createNewPackage(page, dialog, versionDialog, { timeoutMs });
      const status = await waitUploadFinished(item, timeoutMs);
      if (status !== 'done') throw new Error(`the upload ended ${status}: ${await item.textContent()}`);
      const record = await readProbe(page);
      const workerMode = await versionDialog.locator('.upload_packages').getAttribute('data-upload-worker');

      const publishStarted = performance.now();
      await publishVersion(page, versionDialog, timeoutMs);
      const publishMs = performance.now() - publishStarted;

      const createAt = record.createAt;
      const doneAt = statusAt(record, 'done');
      if (createAt === null || doneAt === undefined) throw new Error(`no Create click or no 'done' seen by the page: ${JSON.stringify(record.statuses)}`);
      const splitting = statusAt(record, 'splitting');
      const finalizing = statusAt(record, 'finalizing');
      const filesAt = record.marks.files!;
      const indexedAt = record.marks.indexed!;
      return {
        dialogIndexMs: indexedAt - filesAt,
        dialogTasks: tasksBetween(record, filesAt, createAt),
        uploadMs: doneAt - createAt,
        partsMs: splitting !== undefined && finalizing !== undefined ? finalizing - splitting : undefined,
        beforePartsMs: splitting !== undefined ? splitting - createAt : undefined,
        finalizeMs: finalizing !== undefined ? doneAt - finalizing : undefined,
        publishMs,
        uploadTasks: tasksBetween(record, createAt, doneAt),
        longTaskSupported: record.longTaskSupported,
        statuses: record.statuses,
        worker: workerMode,
      };
    } catch (error) {
      throw withProblems(error);
    }
  } finally {
    await context.close().catch(() => {});
  }
}
