import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { addFile, addSymlink, bytesSource, createTree, packArchive } from '../../src/shared/archive/index.ts';
import { sendArchive, uploadPackage } from '../support/packages.ts';
import { makeTeam } from '../support/projects.ts';
import { languageSelect, message, rtlLanguage, startE2E, visit, type E2E } from './support/app.ts';
import { restApi } from './support/projects.ts';

/** Issue 4: a right-to-left language (Arabic, the 14th) mirrors the layout through CSS logical properties. */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

type Box = { x: number; width: number };

async function boxOf(page: Page, selector: string): Promise<Box> {
  const box = await page.locator(selector).first().boundingBox();
  if (!box) throw new Error(`${selector} has no box (not visible?)`);
  return { x: box.x, width: box.width };
}

async function layout(page: Page) {
  return {
    // The header's first item (the brand link) and its last group (language and theme switchers).
    first: await boxOf(page, 'header > :not(.skip_link)'),
    tools: await boxOf(page, 'header select:has(option[value="pt-BR"])'),
    // The heading's text itself (the h1 box spans the full width either way).
    heading: await page.locator('main h1').evaluate((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      const rect = range.getBoundingClientRect();
      return { x: rect.x, width: rect.width };
    }),
    direction: await page.evaluate(() => getComputedStyle(document.body).direction),
    html: await page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir })),
    // The layout width, without a vertical scrollbar if there is one.
    width: await page.evaluate(() => document.documentElement.clientWidth),
  };
}

const viewportWidth = 1280;

test('switching to Arabic sets <html dir="rtl"> and mirrors the header', async () => {
  const { page, context } = await e2e.open({ viewport: { width: viewportWidth, height: 800 } });
  await visit(page, '/', 'page_home');
  const ltr = await layout(page);
  expect(ltr.html).toEqual({ lang: 'en', dir: 'ltr' });
  expect(ltr.direction).toBe('ltr');
  // In LTR the brand starts at the left, the switchers sit at the right.
  expect(ltr.first.x).toBeLessThan(viewportWidth / 2);
  expect(ltr.tools.x).toBeGreaterThan(viewportWidth / 2);

  await languageSelect(page).selectOption(rtlLanguage);
  await page.locator('main h1', { hasText: message(rtlLanguage, 'home_heading') }).waitFor({ timeout: 5_000 });
  const rtl = await layout(page);
  expect(rtl.html).toEqual({ lang: rtlLanguage, dir: 'rtl' });
  expect(rtl.direction).toBe('rtl');
  // Mirrored: the brand moves to the right edge (same distance from it as from the left in LTR),
  // the switchers to the left, the heading starts at the right.
  expect(rtl.first.x).toBeGreaterThan(viewportWidth / 2);
  const rtlGapToRight = rtl.width - (rtl.first.x + rtl.first.width);
  // (within a scrollbar's width: Chromium may put the vertical scrollbar on the left in RTL)
  expect(Math.abs(rtlGapToRight - ltr.first.x)).toBeLessThanOrEqual(20);
  expect(rtl.tools.x + rtl.tools.width).toBeLessThan(viewportWidth / 2);
  expect(ltr.heading.x).toBeLessThan(ltr.width / 2);
  expect(rtl.heading.x + rtl.heading.width).toBeGreaterThan(rtl.width / 2);
  expect(Math.abs(rtl.width - (rtl.heading.x + rtl.heading.width) - ltr.heading.x)).toBeLessThanOrEqual(20);

  // Persisted, and still RTL after a reload (set before the app renders).
  await page.reload({ waitUntil: 'domcontentloaded' });
  await page.locator('main#content.page_home').waitFor();
  expect((await layout(page)).html).toEqual({ lang: rtlLanguage, dir: 'rtl' });
  expect(await page.evaluate(() => localStorage.getItem('lang'))).toBe(rtlLanguage);
  await context.close();
}, 30_000);

test('breadcrumbs follow the page direction', async () => {
  const { page, context } = await e2e.open({ storage: { lang: rtlLanguage } });
  await visit(page, '/no-such-page', 'page_not_found');
  const crumbs = page.locator('nav.breadcrumb li');
  expect(await crumbs.count()).toBe(2);
  const home = await crumbs.nth(0).boundingBox();
  const current = await crumbs.nth(1).boundingBox();
  expect(home && current).toBeTruthy();
  // RTL: the trail reads from right to left, so the first crumb (home) is to the right of the current page.
  expect(home!.x).toBeGreaterThan(current!.x);
  expect(await crumbs.nth(0).textContent()).toContain(message(rtlLanguage, 'nav_home'));
  await context.close();
}, 30_000);

test('an Arabic browser gets Arabic, right to left, from the first load', async () => {
  const { page, context } = await e2e.open({ locale: 'ar-EG' });
  await visit(page, '/', 'page_home');
  expect((await layout(page)).html).toEqual({ lang: rtlLanguage, dir: 'rtl' });
  expect(await page.locator('main h1').textContent()).toBe(message(rtlLanguage, 'home_heading'));
  await context.close();
}, 30_000);

/** Whether `before` is drawn to the left of `after` inside the element (both taken from its text). */
async function drawnLeftToRight(element: Locator, before: string, after: string): Promise<boolean> {
  return element.evaluate(
    (root, [first, second]) => {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      const rectOf = (needle: string) => {
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const at = node.textContent!.indexOf(needle);
          if (at < 0) continue;
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + needle.length);
          walker.currentNode = root;
          return range.getBoundingClientRect();
        }
        throw new Error(`'${needle}' not in '${root.textContent}'`);
      };
      return rectOf(first!).left < rectOf(second!).left;
    },
    [before, after],
  );
}

test('right to left, sizes and Latin titles keep their own order: "197 KiB", "1.0.1 Linux" (issue 13)', async () => {
  const team = await makeTeam(e2e.server);
  const pkg = await uploadPackage(e2e.server, team.developer, team.project.id, { 'game.bin': 'x'.repeat(197 * 1024) }, { tags: ['os:linux'], entrypoint: ['game.bin'], title: '1.0.1 Linux' });
  const { page, context } = await e2e.openSignedIn({ user: team.tester, storage: { lang: rtlLanguage } });
  await visit(page, `/projects/${team.project.id}/packages/${pkg.id}`, 'page_package');
  const size = page.locator('[data-testid="package-size"]');
  await size.locator('bdi').waitFor({ timeout: 10_000 });
  expect(await size.locator('bdi').getAttribute('dir')).toBe('ltr');
  expect(await drawnLeftToRight(size, '197', 'KiB')).toBe(true);
  for (const title of [page.locator('main h1'), page.locator('aside .sidebar_link'), page.locator('nav.breadcrumb li').last()]) {
    await title.filter({ hasText: '1.0.1 Linux' }).waitFor({ timeout: 10_000 });
    expect(await drawnLeftToRight(title, '1.0.1', 'Linux')).toBe(true);
  }
  // The contents tree's sizes too (one component for every size).
  const entry = page.locator('[data-testid="archive-browser"] li[data-path="game.bin"]');
  await entry.waitFor({ timeout: 10_000 });
  expect(await drawnLeftToRight(entry.locator('.archive_size'), '197', 'KiB')).toBe(true);
  await context.close();
}, 30_000);

test('right to left, paths read left to right: "build/" in the New package tree, "bin/" in the contents tree, the start file and the checks (issue 29)', async () => {
  const team = await makeTeam(e2e.server);
  const { newBranch } = restApi(() => e2e.server);
  const branch = await newBranch(team, 'main');
  // A folder, a start file in it and a link to it (its target is a path too).
  const tree = createTree();
  addFile(tree, 'bin/run.sh', bytesSource(new TextEncoder().encode('#!/bin/sh\n')), { mode: 1 });
  addSymlink(tree, 'start', 'bin/run.sh');
  const packed = packArchive(tree, { compression: 0 });
  const archive = new Uint8Array(await new Response(packed.stream).arrayBuffer());
  await packed.done;
  const sent = await sendArchive(e2e.server, team.developer, team.project.id, archive, { tags: ['os:linux'], entrypoint: ['bin', 'run.sh'] });
  expect(sent.finalize.status).toBe(200);
  const pkg = (await sent.finalize.json()) as { id: string };
  const { page, context } = await e2e.openSignedIn({ user: team.developer, storage: { lang: rtlLanguage } });

  // The package page's contents tree and start file.
  await visit(page, `/projects/${team.project.id}/packages/${pkg.id}`, 'page_package');
  const folderName = page.locator('[data-testid="archive-browser"] li[data-path="bin"] .archive_name');
  await folderName.waitFor({ timeout: 10_000 });
  expect(await drawnLeftToRight(folderName, 'bin', '/')).toBe(true);
  expect(await drawnLeftToRight(page.locator('[data-testid="package-start-file"]'), 'bin', 'run.sh')).toBe(true);
  const link = page.locator('[data-testid="archive-browser"] li[data-path="start"] .archive_link');
  expect(await link.locator('bdi').getAttribute('dir')).toBe('ltr');
  expect(await drawnLeftToRight(link.locator('bdi'), 'bin', 'run.sh')).toBe(true);

  // The New package dialog: a picked folder is a row 'build/', and the check names it left to right.
  const folder = mkdtempSync(join(tmpdir(), 'rtl-paths-'));
  try {
    mkdirSync(join(folder, 'build'));
    writeFileSync(join(folder, 'build', 'game.x86_64'), 'game');
    await visit(page, `/projects/${team.project.id}/branches/${branch.id}`, 'page_branch');
    await page.getByRole('button', { name: message(rtlLanguage, 'branch_publish_new'), exact: true }).click();
    const versionDialog = page.locator('dialog[open]').first();
    await versionDialog.getByRole('button', { name: message(rtlLanguage, 'upload_new_package'), exact: true }).click();
    const dialog = page.locator('dialog[open].new_package_dialog');
    await dialog.locator('[data-testid="new-package-folder-input"]').setInputFiles(join(folder, 'build'));
    const row = dialog.locator('tr[data-path="build"] .file_tree_name');
    await row.waitFor({ timeout: 10_000 });
    expect(await row.textContent()).toBe('build/');
    expect(await drawnLeftToRight(row, 'build', '/')).toBe(true);
    const single = dialog.locator('.package_checks_item[data-code="single_root_directory"] .package_checks_path');
    await single.waitFor({ timeout: 10_000 });
    expect(await single.getAttribute('dir')).toBe('ltr');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  await context.close();
}, 60_000);
