import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Locator, Page } from 'playwright-core';
import { registerUser } from '../support/accounts.ts';
import { addMember, addStar, createProject, makePublic, makeTeam } from '../support/projects.ts';
import { en, openDialog, section, startE2E, visit, type E2E } from './support/app.ts';
import { until } from './support/time.ts';

/** Spec §2 manage: the team list (order, markers), role changes, approval, removal, who sees what. */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

const manageSectionKeys = [
  'manage_general_heading',
  'manage_public_heading',
  'manage_branches_heading',
  'manage_members_heading',
  'manage_onetime_heading',
  'manage_invites_heading',
  'manage_leave_heading',
  'manage_delete_heading',
];

async function visibleSections(page: Page): Promise<string[]> {
  const shown: string[] = [];
  for (const key of manageSectionKeys) if ((await section(page, key).count()) > 0) shown.push(key);
  return shown;
}

function memberRow(page: Page, userId: string): Locator {
  return section(page, 'manage_members_heading').locator(`li[data-user-id="${userId}"]`);
}

async function openManage(page: Page, projectId: string): Promise<void> {
  await visit(page, `/projects/${projectId}/manage`, 'page_manage');
  await section(page, 'manage_members_heading').locator('li[data-user-id]').first().waitFor({ timeout: 10_000 });
}

test('owner: members in the server order with owner and pending markers; the owner row has no controls', async () => {
  const team = await makeTeam(e2e.server);
  // Named to sort after the tester: generated names carry random digits, and names sort numerically.
  const pending = await registerUser(e2e.server, `zz-pending-${Math.random().toString(36).slice(2, 8)}`);
  await addMember(e2e.server, team.project, pending, 'tester', { pending: true });
  const { page, context } = await e2e.openSignedIn({ user: team.owner });
  await openManage(page, team.project.id);
  expect(await page.title()).toBe(`${en('manage_page_title', { project: team.project.title })} - Cartridge`);
  expect(await page.locator('nav.breadcrumb').textContent()).toContain(en('manage_crumb'));
  // The owner sees every section.
  expect(await visibleSections(page)).toEqual(manageSectionKeys.filter((key) => key !== 'manage_leave_heading'));

  const listed = await e2e.server.trpc(team.owner.token).projects.users.list.query({ project: team.project.id });
  const rows = section(page, 'manage_members_heading').locator('li[data-user-id]');
  expect(await rows.evaluateAll((items) => items.map((item) => item.getAttribute('data-user-id')))).toEqual(listed.map((user) => user.user.id));
  // Owner first, then by role rank, then by name (the pending tester's name sorts last).
  expect(listed.map((user) => user.user.id)).toEqual([team.owner.id, team.admin.id, team.developer.id, team.tester.id, pending.id]);
  expect(await section(page, 'manage_members_heading').textContent()).toContain(en('manage_members_count_other', { count: '5' }));

  const ownerRow = memberRow(page, team.owner.id);
  expect(await ownerRow.locator('.badge', { hasText: en('manage_owner') }).count()).toBe(1);
  expect(await ownerRow.locator('select, button').count()).toBe(0);
  expect(await section(page, 'manage_members_heading').locator('.badge', { hasText: en('manage_owner') }).count()).toBe(1);
  const pendingRow = memberRow(page, pending.id);
  expect(await pendingRow.locator('.badge', { hasText: en('manage_pending') }).count()).toBe(1);
  expect(await pendingRow.getByRole('button', { name: `${en('manage_approve')}: ${pending.name}` }).count()).toBe(1);
  expect(await memberRow(page, team.tester.id).locator('.badge', { hasText: en('manage_pending') }).count()).toBe(0);
  expect(await memberRow(page, team.tester.id).getByRole('button', { name: `${en('manage_approve')}: ${team.tester.name}` }).count()).toBe(0);
  await context.close();
}, 45_000);

test('layout: the member count stands on its own line, apart from the intro sentence (issue 13)', async () => {
  const owner = await registerUser(e2e.server);
  const project = await createProject(e2e.server, owner);
  const { page, context } = await e2e.openSignedIn({ user: owner });
  await openManage(page, project.id);
  const members = section(page, 'manage_members_heading');
  const count = members.locator('[data-testid="members-count"]');
  expect(await count.textContent()).toBe(en('manage_members_count_one', { count: '1' }));
  const intro = members.getByText(en('manage_members_pending_intro'), { exact: true });
  const [countBox, introBox] = [(await count.boundingBox())!, (await intro.boundingBox())!];
  // Stacked, not on one line: one ends above where the other starts.
  expect(countBox.y >= introBox.y + introBox.height || introBox.y >= countBox.y + countBox.height).toBe(true);
  await context.close();
}, 30_000);

test('admin changes a role, approves a pending member, removes one after confirming', async () => {
  const team = await makeTeam(e2e.server);
  const pending = await registerUser(e2e.server);
  await addMember(e2e.server, team.project, pending, 'tester', { pending: true });
  const { page, context } = await e2e.openSignedIn({ user: team.admin });
  await openManage(page, team.project.id);
  const api = e2e.server.trpc(team.owner.token);
  const roleOf = async (userId: string) => (await api.projects.users.list.query({ project: team.project.id })).find((user) => user.user.id === userId);

  // The admin's own row and the owner's have no controls.
  expect(await memberRow(page, team.admin.id).locator('select, button').count()).toBe(0);
  expect(await memberRow(page, team.owner.id).locator('select, button').count()).toBe(0);

  // Role change: saved at once and persisted.
  await page.getByLabel(en('manage_role_of', { name: team.developer.name }), { exact: true }).selectOption('admin');
  expect(await until(async () => (await roleOf(team.developer.id))?.role === 'admin')).toBe(true);
  await page.reload({ waitUntil: 'domcontentloaded' });
  await section(page, 'manage_members_heading').locator('li[data-user-id]').first().waitFor({ timeout: 10_000 });
  expect(await page.getByLabel(en('manage_role_of', { name: team.developer.name }), { exact: true }).inputValue()).toBe('admin');

  // Approval: choosing a role alone does not approve; the Approve button does.
  await page.getByLabel(en('manage_role_of', { name: pending.name }), { exact: true }).selectOption('developer');
  await page.waitForTimeout(300);
  expect((await roleOf(pending.id))?.pending).toBe(true);
  await memberRow(page, pending.id).getByRole('button', { name: `${en('manage_approve')}: ${pending.name}` }).click();
  expect(await until(async () => (await roleOf(pending.id))?.pending === false)).toBe(true);
  expect(await roleOf(pending.id)).toMatchObject({ role: 'developer', pending: false });
  await memberRow(page, pending.id).locator('.badge', { hasText: en('manage_pending') }).waitFor({ state: 'detached', timeout: 10_000 });

  // Removal asks first (danger, focus on Cancel); cancelling keeps the member.
  const removeTester = memberRow(page, team.tester.id).getByRole('button', { name: `${en('manage_remove')}: ${team.tester.name}` });
  await removeTester.click();
  let dialog = openDialog(page);
  await dialog.waitFor();
  expect(await dialog.getAttribute('class')).toContain('dialog_danger');
  expect(await dialog.textContent()).toContain(en('manage_remove_text', { name: team.tester.name, project: team.project.title }));
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(en('dialog_cancel'));
  await dialog.getByRole('button', { name: en('dialog_cancel'), exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  expect(await roleOf(team.tester.id)).toBeDefined();
  await removeTester.click();
  dialog = openDialog(page);
  await dialog.getByRole('button', { name: en('manage_remove'), exact: true }).click();
  await memberRow(page, team.tester.id).waitFor({ state: 'detached', timeout: 10_000 });
  expect(await roleOf(team.tester.id)).toBeUndefined();
  await context.close();
}, 60_000);

test('a tester sees the team read-only and only the leave section; a developer the same', async () => {
  const team = await makeTeam(e2e.server);
  for (const user of [team.tester, team.developer]) {
    const { page, context } = await e2e.openSignedIn({ user });
    await openManage(page, team.project.id);
    expect(await visibleSections(page)).toEqual(['manage_members_heading', 'manage_leave_heading']);
    expect(await section(page, 'manage_members_heading').locator('select, button').count()).toBe(0);
    expect(await section(page, 'manage_members_heading').textContent()).toContain(en('projects_list_role_admin'));
    await context.close();
  }
}, 45_000);

test('outsiders get the not-found page, on a private and on a public project (starred too)', async () => {
  const team = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: team.outsider });
  await visit(page, `/projects/${team.project.id}/manage`, 'page_not_found');
  await makePublic(e2e.server, team.project, team.owner);
  await addStar(e2e.server, team.project, team.outsider);
  await visit(page, `/projects/${team.project.id}/manage`, 'page_not_found');
  expect(await page.locator('main h1').textContent()).toBe(en('not_found_title'));
  await context.close();
  // A visitor (no session) too.
  const visitor = await e2e.open();
  await visit(visitor.page, `/projects/${team.project.id}/manage`, 'page_not_found');
  await visitor.context.close();
}, 45_000);
