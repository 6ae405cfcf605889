import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { newId } from '../../src/server/db/ids.ts';
import { credentials } from '../../src/server/db/schema/index.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { uploadPackage } from '../support/packages.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { addMember, createProject, makePublic, type TestProject } from '../support/projects.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';
import { en, message, openDialog, startE2E, visit, type E2E } from './support/app.ts';

/** Spec §2 store/{project}: the public face of a project, star, report content. */
let e2e: E2E;
let owner: TestUser;
let project: TestProject;
let privateProject: TestProject;
let linuxPackage: Package;
let stableId: string;
const reportEmail = 'abuse@games.example.com';

beforeAll(async () => {
  e2e = await startE2E({ REPORT_EMAIL: reportEmail });
  await registerUser(e2e.server, 'admin');
  owner = await registerUser(e2e.server, 'ada_dev');
  project = await createProject(e2e.server, owner, 'Star Miner');
  privateProject = await createProject(e2e.server, owner, 'Secret Lab');
  const base = `/api/projects/${project.id}`;
  await call('PUT', `${base}/description`, { markdown: '# Mine the stars\n\nA **cosy** mining game.', lang: 'en', images: [] });
  await e2e.server.deps.db.insert(credentials).values([
    { id: newId(), userId: owner.id, provider: 'github', name: 'adadev', title: 'Ada on GitHub', profileUrl: 'https://github.com/adadev', isPublic: true },
    { id: newId(), userId: owner.id, provider: 'itch', name: 'hidden', title: 'Hidden account', isPublic: false },
  ]);
  const stable = await call<{ id: string }>('POST', `${base}/branches`, { title: 'stable' });
  stableId = stable.id;
  const beta = await call<{ id: string }>('POST', `${base}/branches`, { title: 'Beta' });
  const internal = await call<{ id: string }>('POST', `${base}/branches`, { title: 'internal' });
  for (const branch of [stable, beta]) await call('PATCH', `${base}/branches/${branch.id}`, { isPublic: true });
  const v1 = await call<{ id: string }>('POST', `${base}/versions`, { title: '1.0.0', description: 'First release' });
  linuxPackage = await uploadPackage(e2e.server, owner, project.id, { 'miner.sh': '#!/bin/sh\n' }, { tags: ['os:linux'] });
  const v2 = await call<{ id: string }>('POST', `${base}/versions`, { title: '1.1.0', description: 'Faster **drills**\n\n# Notes\n\n<img src="x" alt="" onerror="alert(1)">Start at `index.html`.', packages: [linuxPackage.id] });
  const v3 = await call<{ id: string }>('POST', `${base}/versions`, { title: '2.0.0-internal', description: 'Not for players' });
  await call('POST', `${base}/branches/${stable.id}/versions/${v2.id}`);
  await call('POST', `${base}/branches/${beta.id}/versions/${v1.id}`);
  await call('POST', `${base}/branches/${internal.id}/versions/${v3.id}`);
  await makePublic(e2e.server, project, owner);
}, 90_000);
afterAll(async () => {
  await e2e?.close();
});

async function call<T = unknown>(method: string, path: string, json?: unknown): Promise<T> {
  const response = await e2e.server.fetch(path, { method, token: owner.token, json });
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const storePath = (id: string) => `/store/${encodeURIComponent(id)}`;

test('signed out: owner with public credentials, description, only public branches, third-party warning', async () => {
  const { page, context } = await e2e.open();
  await visit(page, storePath(project.id), 'page_store_project');
  await page.locator('main h1', { hasText: 'Star Miner' }).waitFor({ timeout: 10_000 });
  expect(await page.title()).toBe('Star Miner - Cartridge');
  expect(await page.locator('nav.breadcrumb li').allTextContents()).toEqual([en('nav_home'), en('store_title'), 'Star Miner']);
  expect(await page.locator('nav.breadcrumb a', { hasText: en('store_title') }).getAttribute('href')).toBe('/store');

  expect(await page.locator('[data-testid="store-owner"]').textContent()).toBe('ada_dev');
  const profile = page.locator('.store_credentials a', { hasText: 'Ada on GitHub' });
  expect(await profile.getAttribute('href')).toBe('https://github.com/adadev');
  expect(await profile.getAttribute('rel')).toBe('ugc nofollow noopener');
  expect(await profile.getAttribute('target')).toBe('_blank');
  expect(await page.locator('main').textContent()).not.toContain('Hidden account');

  expect(await page.locator('.store_third_party').textContent()).toBe(en('store_third_party', { appName: 'Cartridge' }));
  // The description is rendered markdown below the section heading, in its author's language.
  const description = page.locator('.store_description .markdown');
  expect(await description.getAttribute('lang')).toBe('en');
  expect(await description.locator('h3').textContent()).toBe('Mine the stars');
  expect(await description.locator('strong').textContent()).toBe('cosy');

  // Public branches only, sorted with a collator (Beta before stable), named since there are several;
  // the private one is absent. Their packages wait behind "All downloads".
  await page.locator('.store_downloads_summary').click();
  const branches = page.locator('.store_branch');
  expect(await branches.locator('h3').allTextContents()).toEqual(['Beta', 'stable']);
  expect(await page.locator('main').textContent()).not.toContain('internal');
  expect(await page.locator('main').textContent()).not.toContain('2.0.0-internal');
  const stable = branches.filter({ hasText: 'stable' });
  expect(await stable.textContent()).toContain(en('store_branch_version', { version: '1.1.0' }));
  // Their version notes are in the release notes, newest publish first, under the branch's name.
  const notes = page.locator('.store_notes .store_note');
  // (Beta was published last.)
  expect(await notes.locator('h3 > bdi').allTextContents()).toEqual(['Beta', 'stable']);
  const stableNote = page.locator(`.store_notes .store_note[data-branch-id="${stableId}"]`);
  expect(await stableNote.locator('h3').textContent()).toContain(en('store_branch_version', { version: '1.1.0' }));
  expect(await stableNote.textContent()).toContain('Faster drills');
  // Each package of the current version by its title (package-page.test.ts covers downloads and play).
  expect(await stable.locator('.store_package').evaluateAll((items) => items.map((item) => item.getAttribute('data-package-id')))).toEqual([linuxPackage.id]);
  await stable.locator('.store_package_title', { hasText: linuxPackage.title }).waitFor();
  const published = await stable.locator('time').getAttribute('datetime');
  expect(Number.isNaN(Date.parse(published ?? ''))).toBe(false);
  const shownDate = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(published!));
  expect(await stable.locator('time').textContent()).toBe(en('store_branch_published', { date: shownDate }));
  const beta = branches.filter({ hasText: 'Beta' });
  expect(await beta.textContent()).toContain(en('store_packages_empty'));

  // Visitors get no member link and a star button that asks them to sign in.
  expect(await page.getByRole('link', { name: en('store_open_project'), exact: true }).count()).toBe(0);
  await context.close();
}, 30_000);

/** The API calls a page makes: REST paths, and each tRPC procedure of a (batched) /trpc request. */
function recordApiCalls(page: Page): string[] {
  const calls: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/trpc/')) calls.push(...url.pathname.slice('/trpc/'.length).split(',').map((name) => `trpc ${name}`));
    else if (url.pathname.startsWith('/api/')) calls.push(`${request.method()} ${url.pathname}`);
  });
  return calls;
}

test('the store screen makes one request for its data: the packages come with the store project', async () => {
  // What the app shell asks on any screen (session, instance), seen on the not-found screen.
  const shell = await e2e.open();
  const shellCalls = recordApiCalls(shell.page);
  await visit(shell.page, '/no-such-screen', 'page_not_found');
  await shell.page.waitForLoadState('networkidle');
  await shell.context.close();
  expect(shellCalls).not.toContain('trpc store.project');

  const { page, context } = await e2e.open();
  const calls = recordApiCalls(page);
  await visit(page, storePath(project.id), 'page_store_project');
  await page.locator('.store_downloads_summary').click({ timeout: 10_000 });
  const stable = page.locator('.store_branch').filter({ hasText: 'stable' });
  await stable.locator('.store_package_title', { hasText: linuxPackage.title }).waitFor({ timeout: 10_000 });
  expect(await stable.locator('.store_package [data-tag]').evaluateAll((items) => items.map((item) => item.getAttribute('data-tag')))).toEqual(['os:linux']);
  expect(await stable.locator('.store_package_size').count()).toBe(1);
  // Give any late per-package request the time to show.
  await page.waitForLoadState('networkidle');
  expect(calls.filter((call) => !shellCalls.includes(call))).toEqual(['trpc store.project']);
  await context.close();
}, 30_000);

test('version descriptions are rendered notes, sanitised markdown as on the version page (issues 13 and 29)', async () => {
  const { page, context } = await e2e.open();
  await visit(page, storePath(project.id), 'page_store_project');
  const stable = page.locator(`.store_notes .store_note[data-branch-id="${stableId}"]`);
  const description = stable.locator('.store_version_description');
  await description.waitFor({ timeout: 10_000 });
  expect(await description.locator('strong').textContent()).toBe('drills');
  expect(await description.locator('code').textContent()).toBe('index.html');
  // The author's heading sits below the branch's h3.
  expect(await description.locator('h4').textContent()).toBe('Notes');
  expect(await description.textContent()).not.toContain('**');
  expect(await description.locator('img').getAttribute('onerror')).toBeNull();
  await context.close();
}, 30_000);

test('a private project is not found, even for its owner', async () => {
  const { page, context } = await e2e.openSignedIn({ user: owner });
  await visit(page, storePath(privateProject.id), 'page_not_found');
  expect(await page.locator('main h1').textContent()).toBe(en('not_found_title'));
  await visit(page, storePath('no-such-project'), 'page_not_found');
  await context.close();
}, 30_000);

test('signed-in non-member stars and unstars; the project is listed with the role starred', async () => {
  const { page, context, user } = await e2e.openSignedIn();
  await visit(page, storePath(project.id), 'page_store_project');
  const star = page.getByRole('button', { name: en('store_star'), exact: true });
  await star.waitFor({ timeout: 10_000 });
  await page.waitForFunction(() => document.querySelector('.store_star')?.getAttribute('aria-pressed') === 'false');
  expect(await page.getByRole('link', { name: en('store_open_project'), exact: true }).count()).toBe(0);

  await star.click();
  await page.waitForFunction(() => document.querySelector('.store_star')?.getAttribute('aria-pressed') === 'true', undefined, { timeout: 10_000 });
  expect(await page.locator('.store_starred_note').textContent()).toBe(en('store_starred_note'));
  const mine = await e2e.server.trpc(user.token).projects.mine.query();
  expect(mine.find((item: { id: string }) => item.id === project.id)).toMatchObject({ id: project.id, userRole: 'starred' });
  expect(await e2e.server.trpc(user.token).projects.star.get.query({ project: project.id })).toBe(true);

  // Still starred after a reload; then unstarred, and gone from the list.
  await page.reload({ waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => document.querySelector('.store_star')?.getAttribute('aria-pressed') === 'true', undefined, { timeout: 10_000 });
  await page.getByRole('button', { name: en('store_star'), exact: true }).click();
  await page.waitForFunction(() => document.querySelector('.store_star')?.getAttribute('aria-pressed') === 'false', undefined, { timeout: 10_000 });
  const after = await e2e.server.trpc(user.token).projects.mine.query();
  expect(after.some((item: { id: string }) => item.id === project.id)).toBe(false);
  await context.close();
}, 30_000);

test('members see the way into the project', async () => {
  const member = await registerUser(e2e.server);
  await addMember(e2e.server, project, member, 'tester');
  const { page, context } = await e2e.openSignedIn({ user: member });
  await visit(page, storePath(project.id), 'page_store_project');
  const open = page.getByRole('link', { name: en('store_open_project'), exact: true });
  await open.waitFor({ timeout: 10_000 });
  expect(await open.getAttribute('href')).toBe(`/projects/${project.id}`);
  await context.close();
}, 30_000);

test('signed out, star sends to sign-in and remembers the page', async () => {
  const { page, context } = await e2e.open();
  await visit(page, storePath(project.id), 'page_store_project');
  await page.getByRole('button', { name: en('store_star_sign_in'), exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/login', { timeout: 10_000 });
  expect(await page.evaluate(() => sessionStorage.getItem('returnTo'))).toBe(storePath(project.id));
  await context.close();
}, 30_000);

test('report content: reason and details go into a mailto link with subject and body', async () => {
  const { page, context } = await e2e.open();
  await visit(page, storePath(project.id), 'page_store_project');
  await page.getByRole('button', { name: en('store_report'), exact: true }).click();
  const dialog = openDialog(page);
  await dialog.waitFor();
  expect(await dialog.getByRole('heading').first().textContent()).toBe(en('report_title'));
  expect(await dialog.textContent()).toContain(en('report_intro'));
  expect(await dialog.textContent()).toContain(en('report_recipient', { email: reportEmail }));
  await dialog.getByLabel(en('report_reason_malware'), { exact: true }).check();
  await dialog.getByLabel(en('report_details_label'), { exact: true }).fill('The installer drops a miner & more.\nSee 1.1.0');

  const href = await dialog.getByRole('link', { name: en('report_write_mail'), exact: true }).getAttribute('href');
  expect(href?.startsWith(`mailto:${reportEmail}?`)).toBe(true);
  const query = new URLSearchParams(href!.slice(href!.indexOf('?') + 1));
  expect(query.get('subject')).toBe(en('report_subject', { project: 'Star Miner' }));
  const body = query.get('body')!;
  const url = `${e2e.baseURL}${storePath(project.id)}`;
  expect(body.split('\r\n')).toEqual([
    en('report_body_project', { project: 'Star Miner' }),
    en('report_body_address', { url }),
    en('report_body_reason', { reason: en('report_reason_malware') }),
    '',
    en('report_body_details'),
    'The installer drops a miner & more.',
    'See 1.1.0',
  ]);
  // Spaces are %20 (mail programs take '+' literally).
  expect(href).not.toContain('+');

  await dialog.getByRole('button', { name: en('report_close'), exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  await context.close();
}, 30_000);

for (const theme of ['light', 'dark'] as const) {
  test(`axe, ${theme} theme: store page and the report dialog`, async () => {
    const { page, context } = await e2e.openSignedIn({ colorScheme: theme, storage: { theme } });
    await visit(page, storePath(project.id), 'page_store_project');
    await page.locator('.store_primary').waitFor({ timeout: 10_000 });
    await page.locator('.store_star[aria-pressed]').waitFor();
    await page.locator('.store_downloads_summary').click();
    await page.locator('.store_branch').first().waitFor();
    await page.waitForTimeout(150);
    let violations = await seriousAccessibilityViolations(page);
    if (violations.length) throw new Error(formatViolations(violations, `store (${theme})`));
    await page.getByRole('button', { name: en('store_report'), exact: true }).click();
    await openDialog(page).waitFor();
    await page.waitForTimeout(150);
    violations = await seriousAccessibilityViolations(page);
    if (violations.length) throw new Error(formatViolations(violations, `report dialog (${theme})`));
    await context.close();
  }, 30_000);
}

test('Arabic: right-to-left with translated texts', async () => {
  const { page, context } = await e2e.open({ storage: { lang: 'ar' } });
  await visit(page, storePath(project.id), 'page_store_project');
  await page.locator('.store_third_party').waitFor({ timeout: 10_000 });
  expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
  expect(await page.locator('#store-owner').textContent()).toBe(message('ar', 'store_owner_heading'));
  await context.close();
}, 30_000);
