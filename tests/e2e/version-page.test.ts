import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Locator, Page } from 'playwright-core';
import { makePublic, makeTeam, type Team } from '../support/projects.ts';
import { en, openDialog, startE2E, visit, type E2E } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';
import { restApi, type Item } from './support/projects.ts';

/** Spec §2 .../versions/{version} (through a branch or not): details, branches it is in, repost, edit, delete. */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

const { api, base, newBranch, newVersion, publish } = restApi(() => e2e.server);
const versionPath = (team: Team, version: Item, branch?: Item) =>
  branch ? `/projects/${team.project.id}/branches/${branch.id}/versions/${version.id}` : `/projects/${team.project.id}/versions/${version.id}`;

async function openVersion(page: Page, team: Team, version: Item, branch?: Item): Promise<void> {
  await visit(page, versionPath(team, version, branch), 'page_version');
  await page.locator('main h1', { hasText: version.title }).waitFor({ timeout: 10_000 });
}

function actions(page: Page): Locator {
  return page.getByRole('group', { name: en('version_actions_label'), exact: true });
}

function publishes(page: Page): Locator {
  return page.locator('[data-testid="version-branches"] li');
}

test('details, packages placeholder, branches it is in; the trail keeps the branch it came through', async () => {
  const team = await makeTeam(e2e.server);
  const main = await newBranch(team, 'main');
  const beta = await newBranch(team, 'beta');
  const version = await newVersion(team, '3.1.4', '## What changed\n\n- faster **loading**\n\n<script>window.hacked = 1</script>');
  await publish(team, beta, version);
  await publish(team, main, version);
  await publish(team, beta, await newVersion(team, '3.1.5'));
  const { page, context } = await e2e.openSignedIn({ user: team.tester });

  await openVersion(page, team, version, main);
  expect(await page.title()).toBe('3.1.4 - Cartridge');
  const crumbs = await page.locator('nav.breadcrumb li').allTextContents();
  expect(crumbs.slice(-3)).toEqual([team.project.title, 'main', '3.1.4']);
  const description = page.locator('[data-testid="version-description"]');
  await description.locator('h4', { hasText: 'What changed' }).waitFor();
  expect(await description.locator('strong').textContent()).toBe('loading');
  expect(await page.evaluate(() => (window as unknown as { hacked?: number }).hacked)).toBeUndefined();
  // No packages in this version: its packages section says so (package-page.test.ts lists real ones).
  await page.locator('main .state_empty', { hasText: en('package_page_version_empty') }).waitFor();
  // Newest publish first: main (current), then beta (no longer current there).
  await publishes(page).nth(1).waitFor({ timeout: 10_000 });
  expect(await publishes(page).count()).toBe(2);
  expect(await publishes(page).first().textContent()).toContain('main');
  expect(await publishes(page).first().textContent()).toContain(en('branch_current'));
  expect(await publishes(page).nth(1).textContent()).toContain('beta');
  expect(await publishes(page).nth(1).textContent()).not.toContain(en('branch_current'));
  // A tester may look but not act.
  expect(await actions(page).count()).toBe(0);
  expect(await page.locator('aside a[aria-current="page"]').textContent()).toBe('3.1.4');

  await openVersion(page, team, version);
  expect((await page.locator('nav.breadcrumb li').allTextContents()).slice(-2)).toEqual([team.project.title, '3.1.4']);
  await publishes(page).first().locator('a').click();
  await page.locator('main.page_branch h1', { hasText: 'main' }).waitFor({ timeout: 10_000 });

  await visit(page, `/projects/${team.project.id}/versions/nope`, 'page_not_found');
  await visit(page, `/projects/${team.project.id}/branches/nope/versions/${version.id}`, 'page_not_found');
  await context.close();
}, 45_000);

test('repost in a branch: the branch where it is current is disabled', async () => {
  const team = await makeTeam(e2e.server);
  const main = await newBranch(team, 'main');
  const qa = await newBranch(team, 'qa');
  const version = await newVersion(team, '1.2');
  await publish(team, main, version);
  const { page, context } = await e2e.openSignedIn({ user: team.developer });
  await openVersion(page, team, version);
  await publishes(page).first().waitFor({ timeout: 10_000 });
  expect(await publishes(page).count()).toBe(1);

  await actions(page).getByRole('button', { name: en('version_repost'), exact: true }).click();
  const dialog = openDialog(page);
  await dialog.getByRole('radio').first().waitFor({ timeout: 10_000 });
  expect(await dialog.getByRole('radio', { name: 'main' }).isDisabled()).toBe(true);
  expect(await dialog.textContent()).toContain(en('select_branch_hint'));
  await dialog.getByRole('radio', { name: 'qa' }).check();
  await dialog.getByRole('button', { name: en('select_branch_publish'), exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 10_000 });
  await publishes(page).nth(1).waitFor({ timeout: 10_000 });
  expect(await publishes(page).first().textContent()).toContain('qa');
  const branches = await api<{ id: string; currentVersion: { version: string } | null }[]>('GET', `${base(team)}/branches`, team.owner);
  expect(branches.find((branch) => branch.id === qa.id)?.currentVersion?.version).toBe(version.id);
  await context.close();
}, 30_000);

test('edit title and description; a taken title is shown in the dialog', async () => {
  const team = await makeTeam(e2e.server);
  await newVersion(team, 'taken');
  const version = await newVersion(team, '0.1', 'old text');
  const { page, context } = await e2e.openSignedIn({ user: team.developer });
  await openVersion(page, team, version);
  await actions(page).getByRole('button', { name: en('version_edit'), exact: true }).click();
  const dialog = openDialog(page);
  await dialog.waitFor();
  const title = dialog.getByLabel(en('version_title_label'), { exact: true });
  const description = dialog.getByLabel(en('version_description_label'), { exact: true });
  expect(await title.inputValue()).toBe('0.1');
  expect(await description.inputValue()).toBe('old text');
  await title.fill('taken');
  await dialog.getByRole('button', { name: en('version_save'), exact: true }).click();
  await dialog.getByText(en('version_title_taken'), { exact: true }).waitFor({ timeout: 10_000 });
  await title.fill('0.2');
  await description.fill('new *text*');
  await dialog.getByRole('button', { name: en('version_save'), exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 10_000 });
  await page.locator('main h1', { hasText: '0.2' }).waitFor({ timeout: 10_000 });
  await page.locator('[data-testid="version-description"] em', { hasText: 'text' }).waitFor();
  const stored = await api<Item & { description: string }>('GET', `${base(team)}/versions/${version.id}`, team.owner);
  expect(stored).toMatchObject({ title: '0.2', description: 'new *text*' });
  await context.close();
}, 30_000);

test('delete of a current version says up front it is in use, naming the branches, with no destructive confirmation; otherwise it is confirmed and goes', async () => {
  const team = await makeTeam(e2e.server);
  const main = await newBranch(team, 'main');
  const qa = await newBranch(team, 'qa');
  const used = await newVersion(team, 'used');
  await publish(team, main, used);
  await publish(team, qa, used);
  const unused = await newVersion(team, 'unused');
  const { page, context } = await e2e.openSignedIn({ user: team.admin });

  await openVersion(page, team, used);
  await actions(page).getByRole('button', { name: en('version_delete'), exact: true }).click();
  let dialog = openDialog(page);
  await dialog.waitFor();
  // Issue 29: the first dialog already says why it cannot go; nothing to confirm, nothing sent.
  const refusal = page.locator('dialog[open] [data-testid="version-in-use"] li');
  await refusal.nth(1).waitFor({ timeout: 10_000 });
  expect((await refusal.allTextContents()).sort()).toEqual(['main', 'qa']);
  expect(await openDialog(page).textContent()).toContain(en('version_delete_refused_text', { title: 'used' }));
  expect(await dialog.getAttribute('class')).not.toContain('dialog_danger');
  expect(await dialog.getByRole('button', { name: en('version_delete'), exact: true }).count()).toBe(0);
  expect(await openDialog(page).getByRole('heading').first().textContent()).toBe(en('version_delete_refused_title'));
  await openDialog(page).getByRole('button', { name: en('dialog_ok'), exact: true }).click();
  await openDialog(page).waitFor({ state: 'detached' });
  expect((await e2e.server.fetch(`${base(team)}/versions/${used.id}`, { token: team.owner.token })).status).toBe(200);

  await openVersion(page, team, unused);
  await actions(page).getByRole('button', { name: en('version_delete'), exact: true }).click();
  dialog = openDialog(page);
  await dialog.waitFor();
  expect(await dialog.getAttribute('class')).toContain('dialog_danger');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(en('dialog_cancel'));
  await dialog.getByRole('button', { name: en('version_delete'), exact: true }).click();
  await page.waitForURL((url) => url.pathname === `/projects/${team.project.id}`, { timeout: 10_000 });
  expect((await e2e.server.fetch(`${base(team)}/versions/${unused.id}`, { token: team.owner.token })).status).toBe(404);
  await context.close();
}, 30_000);

test('a visitor of a public branch sees the version without actions; axe in light and dark theme', async () => {
  const team = await makeTeam(e2e.server);
  const branch = await newBranch(team, 'public');
  const version = await newVersion(team, '9.9', 'Hello');
  await publish(team, branch, version);
  await makePublic(e2e.server, team.project, team.owner);
  await api('PATCH', `${base(team)}/branches/${branch.id}`, team.owner, { isPublic: true });

  const visitor = await e2e.open();
  await openVersion(visitor.page, team, version, branch);
  await publishes(visitor.page).first().waitFor({ timeout: 10_000 });
  expect(await actions(visitor.page).count()).toBe(0);
  await visitor.context.close();

  for (const theme of ['light', 'dark'] as const) {
    const { page, context } = await e2e.openSignedIn({ user: team.owner, colorScheme: theme, storage: { theme } });
    await openVersion(page, team, version, branch);
    await publishes(page).first().waitFor({ timeout: 10_000 });
    await page.waitForTimeout(150);
    let violations = await seriousAccessibilityViolations(page);
    expect(formatViolations(violations, `version page (${theme})`)).toBe(`version page (${theme}): no serious or critical violations`);
    await actions(page).getByRole('button', { name: en('version_edit'), exact: true }).click();
    await openDialog(page).waitFor();
    violations = await seriousAccessibilityViolations(page);
    expect(formatViolations(violations, `edit dialog (${theme})`)).toBe(`edit dialog (${theme}): no serious or critical violations`);
    await context.close();
  }
}, 45_000);
