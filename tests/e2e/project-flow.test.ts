import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { registerUser } from '../support/accounts.ts';
import { en, openDialog, section, startE2E, visit, type E2E } from './support/app.ts';

/**
 * Issue 5's whole journey through the screens, in one story: the owner creates a project and a branch,
 * invites a second user by link, who joins; the owner changes their role, publishes a version, makes
 * the project and the branch public; a signed-out visitor sees the store page; a third user stars it;
 * the second user leaves. Each step is checked on the server, not only on screen.
 */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

test('create, invite by link, join, change role, publish, go public, store signed out, star, leave', async () => {
  // The first user of an instance holds every privilege (create_project, store_publish).
  const owner = await registerUser(e2e.server);
  const member = await registerUser(e2e.server);
  const fan = await registerUser(e2e.server);
  const api = e2e.server.trpc(owner.token);
  const title = `Star Courier ${Math.random().toString(36).slice(2, 6)}`;

  // 1. Create the project from the projects list.
  const ownerSide = await e2e.openSignedIn({ user: owner });
  const page = ownerSide.page;
  await visit(page, '/projects', 'page_projects');
  await page.getByText(en('projects_list_empty'), { exact: true }).waitFor({ timeout: 10_000 });
  await page.getByRole('button', { name: en('projects_list_new'), exact: true }).click();
  let dialog = openDialog(page);
  await dialog.getByLabel(en('project_new_label'), { exact: true }).fill(title);
  await dialog.getByRole('button', { name: en('project_new_create'), exact: true }).click();
  await page.locator('main#content.page_project_overview').waitFor({ timeout: 10_000 });
  await page.getByRole('heading', { name: title, exact: true, level: 1 }).waitFor({ timeout: 10_000 });
  const projectId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
  expect((await api.projects.get.query({ project: projectId })).userIsOwner).toBe(true);

  // 2. A branch from the overview.
  await page.getByRole('button', { name: en('project_overview_new_branch'), exact: true }).click();
  dialog = openDialog(page);
  await dialog.getByLabel(en('project_overview_new_branch_label'), { exact: true }).fill('stable');
  await dialog.getByRole('button', { name: en('project_overview_create'), exact: true }).click();
  await page.locator('main#content.page_branch').waitFor({ timeout: 10_000 });
  const [branch] = await api.projects.branches.list.query({ project: projectId });
  expect(branch).toMatchObject({ title: 'stable', isPublic: false, currentVersion: null });

  // 3. An invite link from the manage page (defaults: no expiry, immediate, no seat limit).
  await visit(page, `/projects/${encodeURIComponent(projectId)}/manage`, 'page_manage');
  await section(page, 'manage_invites_heading').getByRole('button', { name: en('manage_invite_create'), exact: true }).click();
  dialog = openDialog(page);
  await dialog.getByRole('button', { name: en('invite_link_create'), exact: true }).click();
  await dialog.getByRole('heading', { name: en('invite_link_created_title'), exact: true }).waitFor({ timeout: 10_000 });
  const link = new URL(await dialog.locator('input[readonly]').inputValue());
  await dialog.getByRole('button', { name: en('dialog_ok'), exact: true }).click();
  expect(link.pathname).toBe('/invite');

  // 4. The second user opens the link and joins: they land on the project as a tester.
  const memberSide = await e2e.openSignedIn({ user: member });
  await visit(memberSide.page, `${link.pathname}${link.search}`, 'page_invite');
  await memberSide.page.getByText(en('invite_page_invited', { project: title }), { exact: true }).waitFor({ timeout: 10_000 });
  await memberSide.page.getByRole('button', { name: en('invite_page_join'), exact: true }).click();
  await memberSide.page.locator('main#content.page_project_overview').waitFor({ timeout: 10_000 });
  const roleOf = async (userId: string) => (await api.projects.users.list.query({ project: projectId })).find((user) => user.user.id === userId);
  expect(await roleOf(member.id)).toMatchObject({ role: 'tester', pending: false, isOwner: false });

  // 5. The owner makes them a developer.
  await page.reload({ waitUntil: 'domcontentloaded' });
  await page.getByLabel(en('manage_role_of', { name: member.name }), { exact: true }).selectOption('developer');
  await until(async () => (await roleOf(member.id))?.role === 'developer', 'the role change');

  // 6. The new developer publishes the first version from the branch page.
  const developerPage = memberSide.page;
  await visit(developerPage, `/projects/${encodeURIComponent(projectId)}/branches/${encodeURIComponent(branch!.id)}`, 'page_branch');
  await developerPage.getByRole('button', { name: en('branch_publish_new'), exact: true }).click();
  dialog = openDialog(developerPage);
  expect(await dialog.getByLabel(en('version_title_label'), { exact: true }).inputValue()).toBe('1.0.0');
  await dialog.getByLabel(en('version_description_label'), { exact: true }).fill('First playable build.');
  await dialog.getByRole('button', { name: en('version_publish'), exact: true }).click();
  await until(async () => (await api.projects.branches.list.query({ project: projectId }))[0]?.currentVersion?.title === '1.0.0', 'the publish');

  // 7. The owner opens the project to the public and makes the branch public.
  await visit(page, `/projects/${encodeURIComponent(projectId)}/manage`, 'page_manage');
  await section(page, 'manage_public_heading').getByLabel(en('manage_public_toggle'), { exact: true }).check();
  await until(async () => (await api.projects.get.query({ project: projectId })).isPublic, 'the project to become public');
  await section(page, 'manage_branches_heading').getByLabel('stable', { exact: true }).check();
  await until(async () => (await api.projects.branches.list.query({ project: projectId }))[0]?.isPublic === true, 'the branch to become public');

  // 8. A signed-out visitor sees the store page with the branch and its version.
  const visitor = await e2e.open();
  await visit(visitor.page, `/store/${encodeURIComponent(projectId)}`, 'page_store_project');
  await visitor.page.getByRole('heading', { name: title, exact: true, level: 1 }).waitFor({ timeout: 10_000 });
  // Its version in the release notes (the package list waits behind "All downloads").
  await visitor.page.locator('.store_notes').getByText(en('store_branch_version', { version: '1.0.0' }), { exact: true }).waitFor({ timeout: 10_000 });
  expect(await visitor.page.textContent('main')).toContain('First playable build.');
  // The owner is named on the store page.
  expect(await visitor.page.textContent('main')).toContain((await api.users.me.query()).title);

  // 9. A third user stars it from the store page; it is then in their project list as starred.
  const fanSide = await e2e.openSignedIn({ user: fan });
  await visit(fanSide.page, `/store/${encodeURIComponent(projectId)}`, 'page_store_project');
  await fanSide.page.getByRole('button', { name: en('store_star'), exact: true }).click();
  await fanSide.page.waitForFunction(() => document.querySelector('.store_star')?.getAttribute('aria-pressed') === 'true', undefined, { timeout: 10_000 });
  expect((await e2e.server.trpc(fan.token).projects.mine.query()).map((project) => [project.id, project.userRole])).toEqual([[projectId, 'starred']]);
  await visit(fanSide.page, '/projects', 'page_projects');
  const fanRow = fanSide.page.locator(`li[data-project-id="${projectId}"]`);
  await fanRow.waitFor({ timeout: 10_000 });
  expect(await fanRow.locator('.projects_list_role').textContent()).toEndWith(en('projects_list_role_starred'));

  // 10. The developer leaves; they land on their (now empty) project list and the team shrinks.
  await visit(developerPage, `/projects/${encodeURIComponent(projectId)}/manage`, 'page_manage');
  await section(developerPage, 'manage_leave_heading').getByRole('button', { name: en('manage_leave_button'), exact: true }).click();
  dialog = openDialog(developerPage);
  await dialog.getByRole('button', { name: en('manage_leave_button'), exact: true }).click();
  await developerPage.locator('main#content.page_projects').waitFor({ timeout: 10_000 });
  await developerPage.getByText(en('projects_list_empty'), { exact: true }).waitFor({ timeout: 10_000 });
  expect(await roleOf(member.id)).toBeUndefined();
  expect((await api.projects.users.list.query({ project: projectId })).map((user) => user.user.id)).toEqual([owner.id]);
}, 120_000);
