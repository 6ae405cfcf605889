import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Locator, Page } from 'playwright-core';
import { makePublic, makeTeam, type Team } from '../support/projects.ts';
import { en, message, openDialog, rtlLanguage, section, startE2E, visit, type E2E } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';
import { restApi, type Item } from './support/projects.ts';

/** Spec §2 projects/{project}/branches/{branch}: current version, publishing, history, rename, delete, retention. */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

const { api, base, newBranch, newVersion: newVersionWith, publish } = restApi(() => e2e.server);
const newVersion = (team: Team, title: string) => newVersionWith(team, title, `About ${title}`);
type ApiBranch = Item & { currentVersion: { version: string; title: string } | null; retention?: Record<string, number | null> };
const branchesOf = (team: Team) => api<ApiBranch[]>('GET', `${base(team)}/branches`, team.owner);
const branchPath = (team: Team, branch: Item) => `/projects/${team.project.id}/branches/${branch.id}`;

async function openBranch(page: Page, team: Team, branch: Item): Promise<void> {
  await visit(page, branchPath(team, branch), 'page_branch');
  await page.locator('main h1', { hasText: branch.title }).waitFor({ timeout: 10_000 });
}

function actions(page: Page): Locator {
  return page.getByRole('group', { name: en('branch_actions_label'), exact: true });
}

test('publish a new version from the branch page: 1.0.0 first, then 1.0.1; a taken title is shown', async () => {
  const team = await makeTeam(e2e.server);
  const branch = await newBranch(team, 'main');
  const { page, context } = await e2e.openSignedIn({ user: team.developer });
  await openBranch(page, team, branch);
  expect(await page.title()).toBe(`main - Cartridge`);
  expect(await page.locator('nav.breadcrumb').textContent()).toContain(team.project.title);
  expect(await page.locator('[data-testid="branch-current"]').textContent()).toBe(en('branch_no_version'));
  await section(page, 'branch_history_heading').getByText(en('branch_history_empty'), { exact: true }).waitFor();
  // The sidebar marks this branch.
  expect(await page.locator('aside a[aria-current="page"]').textContent()).toBe('main');

  await actions(page).getByRole('button', { name: en('branch_publish_new'), exact: true }).click();
  let dialog = openDialog(page);
  await dialog.waitFor();
  const title = dialog.getByLabel(en('version_title_label'), { exact: true });
  expect(await title.inputValue()).toBe('1.0.0');
  // Packages: new uploads or existing ones (none here: a version may have none).
  expect(await dialog.textContent()).toContain(en('version_packages_label'));
  await dialog.getByLabel(en('version_description_label'), { exact: true }).fill('First build\n<b>not bold</b>');
  await dialog.getByRole('button', { name: en('version_publish'), exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 10_000 });
  await page.locator('[data-testid="branch-current"] a', { hasText: '1.0.0' }).waitFor({ timeout: 10_000 });
  let history = page.locator('[data-testid="branch-history"] li');
  await history.first().waitFor();
  expect(await history.count()).toBe(1);
  expect(await history.first().textContent()).toContain(en('branch_current'));
  expect((await branchesOf(team))[0]!.currentVersion?.title).toBe('1.0.0');

  // The next default increments the latest title.
  await actions(page).getByRole('button', { name: en('branch_publish_new'), exact: true }).click();
  dialog = openDialog(page);
  await dialog.waitFor();
  expect(await dialog.getByLabel(en('version_title_label'), { exact: true }).inputValue()).toBe('1.0.1');
  // A taken title is refused in place; the dialog stays open.
  await dialog.getByLabel(en('version_title_label'), { exact: true }).fill('1.0.0');
  await dialog.getByRole('button', { name: en('version_publish'), exact: true }).click();
  await dialog.getByText(en('version_title_taken'), { exact: true }).waitFor({ timeout: 10_000 });
  await dialog.getByLabel(en('version_title_label'), { exact: true }).fill('1.0.1');
  await dialog.getByRole('button', { name: en('version_publish'), exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 10_000 });
  await page.locator('[data-testid="branch-current"] a', { hasText: '1.0.1' }).waitFor({ timeout: 10_000 });
  history = page.locator('[data-testid="branch-history"] li');
  await history.nth(1).waitFor();
  expect(await history.count()).toBe(2);
  expect(await history.first().textContent()).toContain('1.0.1');
  expect(await history.nth(1).textContent()).not.toContain(en('branch_current'));
  const versions = await api<(Item & { description: string })[]>('GET', `${base(team)}/versions`, team.owner);
  expect(versions.map((version) => version.title)).toEqual(['1.0.1', '1.0.0']);
  expect(versions[1]!.description).toBe('First build\n<b>not bold</b>');

  // The current version links to the version page reached through the branch.
  await page.locator('[data-testid="branch-current"] a').click();
  await page.locator('main.page_version h1', { hasText: '1.0.1' }).waitFor({ timeout: 10_000 });
  expect(new URL(page.url()).pathname).toBe(`${branchPath(team, branch)}/versions/${versions[0]!.id}`);
  await context.close();
}, 45_000);

test('publish an existing version: the current one is shown disabled', async () => {
  const team = await makeTeam(e2e.server);
  const branch = await newBranch(team, 'beta');
  const older = await newVersion(team, '0.9');
  const current = await newVersion(team, '1.0');
  await publish(team, branch, current);
  const { page, context } = await e2e.openSignedIn({ user: team.owner });
  await openBranch(page, team, branch);
  await actions(page).getByRole('button', { name: en('branch_publish_existing'), exact: true }).click();
  const dialog = openDialog(page);
  await dialog.waitFor();
  const currentRadio = dialog.getByRole('radio', { name: '1.0' });
  await currentRadio.waitFor({ timeout: 10_000 });
  expect(await currentRadio.isDisabled()).toBe(true);
  expect(await dialog.textContent()).toContain(en('select_version_current'));
  await dialog.getByRole('radio', { name: '0.9' }).check();
  await dialog.getByRole('button', { name: en('select_version_publish'), exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 10_000 });
  await page.locator('[data-testid="branch-current"] a', { hasText: '0.9' }).waitFor({ timeout: 10_000 });
  expect((await branchesOf(team))[0]!.currentVersion?.version).toBe(older.id);
  await context.close();
}, 30_000);

test('history pages with Load more (newest first)', async () => {
  const team = await makeTeam(e2e.server);
  const branch = await newBranch(team, 'nightly');
  // The instance keeps 20 versions per branch by default: keep more, or retention trims the history.
  await api('PATCH', `${base(team)}/branches/${branch.id}`, team.owner, { retention: { quotaCount: 100 } });
  for (let index = 1; index <= 23; index++) await publish(team, branch, await newVersion(team, `build ${index}`));
  const { page, context } = await e2e.openSignedIn({ user: team.tester });
  await openBranch(page, team, branch);
  const items = page.locator('[data-testid="branch-history"] li');
  await items.nth(19).waitFor({ timeout: 10_000 });
  expect(await items.count()).toBe(20);
  expect(await items.first().textContent()).toContain('build 23');
  expect(await items.first().textContent()).toContain(en('branch_current'));
  const loadMore = page.getByRole('button', { name: en('branch_load_more'), exact: true });
  await loadMore.click();
  await items.nth(22).waitFor({ timeout: 10_000 });
  expect(await items.count()).toBe(23);
  expect(await items.last().textContent()).toContain('build 1');
  await loadMore.waitFor({ state: 'detached', timeout: 5_000 });
  await context.close();
}, 60_000);

test('rename (a taken name is refused inline, as in New branch) and delete with a danger confirmation', async () => {
  const team = await makeTeam(e2e.server);
  const branch = await newBranch(team, 'old name');
  await newBranch(team, 'taken');
  const { page, context } = await e2e.openSignedIn({ user: team.admin });
  await openBranch(page, team, branch);

  await actions(page).getByRole('button', { name: en('branch_rename'), exact: true }).click();
  let dialog = openDialog(page);
  await dialog.waitFor();
  // Issue 29: the same field as New branch, "Branch title".
  const input = dialog.getByLabel(en('project_overview_new_branch_label'), { exact: true });
  expect(await input.inputValue()).toBe('old name');
  await input.fill('taken');
  await dialog.getByRole('button', { name: en('branch_rename'), exact: true }).click();
  // Refused in the prompt itself, before anything is sent: no error dialog.
  const problem = dialog.locator('.field_problem');
  await problem.waitFor({ timeout: 10_000 });
  expect(await problem.textContent()).toBe(en('project_overview_name_taken'));
  expect(await input.getAttribute('aria-invalid')).toBe('true');
  expect(await page.locator('dialog[open]').count()).toBe(1);
  expect(await page.locator('[data-error-code]').count()).toBe(0);

  // Taken meanwhile by someone else: the server's name_conflict is shown the same way, in the prompt asked again.
  await newBranch(team, 'raced');
  await input.fill('raced');
  await dialog.getByRole('button', { name: en('branch_rename'), exact: true }).click();
  dialog = openDialog(page);
  await dialog.locator('.field_problem').waitFor({ timeout: 10_000 });
  expect(await dialog.locator('.field_problem').textContent()).toBe(en('project_overview_name_taken'));
  expect(await dialog.getByLabel(en('project_overview_new_branch_label'), { exact: true }).inputValue()).toBe('raced');
  expect(await page.locator('[data-error-code]').count()).toBe(0);
  await dialog.getByLabel(en('project_overview_new_branch_label'), { exact: true }).fill('new name');
  await dialog.getByRole('button', { name: en('branch_rename'), exact: true }).click();
  await page.locator('main h1', { hasText: 'new name' }).waitFor({ timeout: 10_000 });
  expect((await branchesOf(team)).map((item) => item.title).sort()).toEqual(['new name', 'raced', 'taken']);

  await actions(page).getByRole('button', { name: en('branch_delete'), exact: true }).click();
  dialog = openDialog(page);
  await dialog.waitFor();
  expect(await dialog.getAttribute('class')).toContain('dialog_danger');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(en('dialog_cancel'));
  expect(await dialog.textContent()).toContain('new name');
  await dialog.getByRole('button', { name: en('branch_delete'), exact: true }).click();
  await page.waitForURL((url) => url.pathname === `/projects/${team.project.id}`, { timeout: 10_000 });
  expect((await branchesOf(team)).map((item) => item.title).sort()).toEqual(['raced', 'taken']);
  await context.close();
}, 45_000);

test('actions are hidden for a tester and for a visitor of a public branch; unknown branches are not found', async () => {
  const team = await makeTeam(e2e.server);
  const branch = await newBranch(team, 'stable');
  await publish(team, branch, await newVersion(team, '2.0'));

  const tester = await e2e.openSignedIn({ user: team.tester });
  await openBranch(tester.page, team, branch);
  await tester.page.locator('[data-testid="branch-current"] a', { hasText: '2.0' }).waitFor({ timeout: 10_000 });
  expect(await actions(tester.page).count()).toBe(0);
  expect(await tester.page.locator('[data-testid="retention-form"]').count()).toBe(0);
  await tester.context.close();

  // A developer publishes and renames but neither deletes nor sets retention.
  const developer = await e2e.openSignedIn({ user: team.developer });
  await openBranch(developer.page, team, branch);
  await actions(developer.page).getByRole('button', { name: en('branch_rename'), exact: true }).waitFor();
  expect(await actions(developer.page).getByRole('button', { name: en('branch_delete'), exact: true }).count()).toBe(0);
  expect(await developer.page.locator('[data-testid="retention-form"]').count()).toBe(0);
  await developer.context.close();

  await makePublic(e2e.server, team.project, team.owner);
  await api('PATCH', `${base(team)}/branches/${branch.id}`, team.owner, { isPublic: true });
  const visitor = await e2e.open();
  await openBranch(visitor.page, team, branch);
  await visitor.page.locator('main h1 .badge', { hasText: en('branch_public') }).waitFor();
  await visitor.page.locator('[data-testid="branch-current"] a', { hasText: '2.0' }).waitFor({ timeout: 10_000 });
  expect(await actions(visitor.page).count()).toBe(0);
  await visit(visitor.page, `/projects/${team.project.id}/branches/nope`, 'page_not_found');
  await visitor.context.close();
}, 45_000);

test('retention: days and a count round trip; empty fields inherit the project default', async () => {
  const team = await makeTeam(e2e.server);
  const branch = await newBranch(team, 'kept');
  const { page, context } = await e2e.openSignedIn({ user: team.owner });
  await openBranch(page, team, branch);
  const form = page.locator('[data-testid="retention-form"]');
  await form.waitFor({ timeout: 10_000 });
  const count = form.getByLabel(en('branch_retention_count'), { exact: true });
  const time = form.getByLabel(en('branch_retention_time'), { exact: true });
  const nonCurrent = form.getByLabel(en('branch_retention_noncurrent'), { exact: true });
  expect(await count.inputValue()).toBe('');
  await form.getByText(en('branch_retention_default_indefinitely'), { exact: true }).first().waitFor({ timeout: 10_000 });
  // The count's hint is the project's default (the instance keeps 20 unless configured otherwise).
  const quotas = await api<{ branchVersionsCount: number | null }>('GET', `${base(team)}/quotas`, team.owner);
  const countHint = quotas.branchVersionsCount ? en('branch_retention_default_count_other', { count: String(quotas.branchVersionsCount) }) : en('branch_retention_default_unlimited');
  await form.getByText(countHint, { exact: true }).waitFor();

  await time.fill('abc');
  await form.getByRole('button', { name: en('branch_retention_save'), exact: true }).click();
  await form.getByText(en('branch_retention_invalid', { max: '36500' }), { exact: true }).waitFor();

  await count.fill('5');
  await time.fill('30');
  await form.getByRole('button', { name: en('branch_retention_save'), exact: true }).click();
  await form.getByText(en('branch_retention_saved'), { exact: true }).waitFor({ timeout: 10_000 });
  let stored = (await branchesOf(team))[0]!;
  expect(stored.retention).toEqual({ quotaCount: 5, quotaTime: 30 * 86_400, quotaNonCurrentTime: null });

  await page.reload({ waitUntil: 'domcontentloaded' });
  await form.waitFor({ timeout: 10_000 });
  expect(await count.inputValue()).toBe('5');
  expect(await time.inputValue()).toBe('30');
  expect(await nonCurrent.inputValue()).toBe('');

  await count.fill('');
  await nonCurrent.fill('7');
  await form.getByRole('button', { name: en('branch_retention_save'), exact: true }).click();
  await form.getByText(en('branch_retention_saved'), { exact: true }).waitFor({ timeout: 10_000 });
  stored = (await branchesOf(team))[0]!;
  expect(stored.retention).toEqual({ quotaCount: null, quotaTime: 30 * 86_400, quotaNonCurrentTime: 7 * 86_400 });
  await context.close();
}, 45_000);

test('axe in light and dark theme (page and the publish-existing dialog); Arabic is right-to-left', async () => {
  const team = await makeTeam(e2e.server);
  const branch = await newBranch(team, 'axe');
  await publish(team, branch, await newVersion(team, '1.0'));
  for (const theme of ['light', 'dark'] as const) {
    const { page, context } = await e2e.openSignedIn({ user: team.owner, colorScheme: theme, storage: { theme } });
    await openBranch(page, team, branch);
    await page.locator('[data-testid="branch-history"] li').first().waitFor({ timeout: 10_000 });
    await page.locator('[data-testid="retention-form"]').waitFor();
    await page.waitForTimeout(150);
    let violations = await seriousAccessibilityViolations(page);
    expect(formatViolations(violations, `branch page (${theme})`)).toBe(`branch page (${theme}): no serious or critical violations`);
    await actions(page).getByRole('button', { name: en('branch_publish_existing'), exact: true }).click();
    await openDialog(page).getByRole('radio').first().waitFor({ timeout: 10_000 });
    violations = await seriousAccessibilityViolations(page);
    expect(formatViolations(violations, `publish existing dialog (${theme})`)).toBe(`publish existing dialog (${theme}): no serious or critical violations`);
    await context.close();
  }

  const { page, context } = await e2e.openSignedIn({ user: team.owner, locale: 'ar', storage: { lang: rtlLanguage } });
  await visit(page, branchPath(team, branch), 'page_branch');
  await page.getByRole('button', { name: message(rtlLanguage, 'branch_publish_new'), exact: true }).waitFor({ timeout: 10_000 });
  expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
  expect(await page.evaluate(() => getComputedStyle(document.querySelector('main')!).direction)).toBe('rtl');
  await context.close();
}, 60_000);
