import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { eq, and } from 'drizzle-orm';
import { projectUsers } from '../../src/server/db/schema/index.ts';
import { storeTagSuggestions } from '../../src/shared/schemas/store-tags.ts';
import { registerUser } from '../support/accounts.ts';
import { addMember, grantPrivilege, makePublic, makeTeam, type Team } from '../support/projects.ts';
import { en, message, openDialog, rtlLanguage, section, startE2E, visit, type E2E } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';
import { until } from './support/time.ts';

/** Spec §2 manage: rename, public access (§5 privilege rule), public branches, store tags (issue 29), leave, delete, a11y, RTL. */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

async function projectAs(team: Team) {
  return e2e.server.trpc(team.owner.token).projects.get.query({ project: team.project.id });
}

test('rename through the prompt; the new title shows and persists', async () => {
  const team = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: team.admin });
  await visit(page, `/projects/${team.project.id}/manage`, 'page_manage');
  const general = section(page, 'manage_general_heading');
  await general.getByRole('button', { name: en('manage_rename'), exact: true }).click();
  const dialog = openDialog(page);
  const input = dialog.getByLabel(en('manage_rename_label'), { exact: true });
  expect(await input.inputValue()).toBe(team.project.title);
  await input.fill('  Renamed Game  ');
  await dialog.getByRole('button', { name: en('manage_rename'), exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.locator('[data-testid="manage-project-title"]', { hasText: 'Renamed Game' }).waitFor({ timeout: 10_000 });
  expect((await projectAs(team)).title).toBe('Renamed Game');
  expect(await page.locator('main h1').textContent()).toBe(en('manage_page_title', { project: 'Renamed Game' }));
  await context.close();
}, 45_000);

test('public toggle: disabled with the reason without store_publish on a private project; the owner with it publishes', async () => {
  const team = await makeTeam(e2e.server);
  const admin = await e2e.openSignedIn({ user: team.admin });
  await visit(admin.page, `/projects/${team.project.id}/manage`, 'page_manage');
  let toggle = section(admin.page, 'manage_public_heading').getByLabel(en('manage_public_toggle'), { exact: true });
  await toggle.waitFor();
  expect(await toggle.isDisabled()).toBe(true);
  expect(await toggle.isChecked()).toBe(false);
  expect(await section(admin.page, 'manage_public_heading').textContent()).toContain(en('manage_public_needs_privilege'));
  // The reason is tied to the control for screen readers.
  const describedBy = (await toggle.getAttribute('aria-describedby')) ?? '';
  const descriptions = await Promise.all(describedBy.split(' ').map((id) => admin.page.locator(`[id="${id}"]`).textContent()));
  expect(descriptions.join(' ')).toContain(en('manage_public_needs_privilege'));
  await admin.context.close();

  await grantPrivilege(e2e.server, team.owner, 'store_publish');
  const { page, context } = await e2e.openSignedIn({ user: team.owner });
  await visit(page, `/projects/${team.project.id}/manage`, 'page_manage');
  const publicSection = section(page, 'manage_public_heading');
  toggle = publicSection.getByLabel(en('manage_public_toggle'), { exact: true });
  await toggle.waitFor();
  expect(await toggle.isDisabled()).toBe(false);
  expect(await publicSection.textContent()).toContain(en('manage_public_hint'));
  expect(await publicSection.textContent()).not.toContain(en('manage_public_needs_privilege'));
  await toggle.check();
  expect(await until(async () => (await projectAs(team)).isPublic)).toBe(true);
  await publicSection.getByRole('link', { name: en('manage_public_store_link'), exact: true }).waitFor({ timeout: 10_000 });

  // Turning it off asks first; cancelling keeps it public.
  await toggle.click();
  let dialog = openDialog(page);
  await dialog.waitFor();
  expect(await dialog.textContent()).toContain(en('manage_private_text'));
  await dialog.getByRole('button', { name: en('dialog_cancel'), exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  expect((await projectAs(team)).isPublic).toBe(true);
  expect(await toggle.isChecked()).toBe(true);
  await toggle.click();
  dialog = openDialog(page);
  await dialog.getByRole('button', { name: en('manage_private_confirm'), exact: true }).click();
  expect(await until(async () => !(await projectAs(team)).isPublic)).toBe(true);
  await context.close();
}, 60_000);

test('an admin without store_publish may still make a public project private', async () => {
  const team = await makeTeam(e2e.server);
  await makePublic(e2e.server, team.project, team.owner);
  const { page, context } = await e2e.openSignedIn({ user: team.admin });
  await visit(page, `/projects/${team.project.id}/manage`, 'page_manage');
  const toggle = section(page, 'manage_public_heading').getByLabel(en('manage_public_toggle'), { exact: true });
  await toggle.waitFor();
  expect(await toggle.isChecked()).toBe(true);
  expect(await toggle.isDisabled()).toBe(false);
  await context.close();
}, 30_000);

test('public branch checkboxes persist', async () => {
  const team = await makeTeam(e2e.server);
  const api = e2e.server.trpc(team.owner.token);
  const beta = await api.projects.branches.create.mutate({ project: team.project.id, title: 'beta' });
  await api.projects.branches.create.mutate({ project: team.project.id, title: 'main' });
  const { page, context } = await e2e.openSignedIn({ user: team.admin });
  await visit(page, `/projects/${team.project.id}/manage`, 'page_manage');
  const branches = section(page, 'manage_branches_heading');
  // The project is private: the note says no branch shows outside the team yet.
  expect(await branches.textContent()).toContain(en('manage_branches_private_note'));
  const betaBox = branches.getByLabel('beta', { exact: true });
  await betaBox.waitFor({ timeout: 10_000 });
  expect(await betaBox.isChecked()).toBe(false);
  await betaBox.check();
  const betaIsPublic = async () => (await api.projects.branches.list.query({ project: team.project.id })).find((branch) => branch.id === beta.id)?.isPublic === true;
  expect(await until(betaIsPublic)).toBe(true);
  await page.reload({ waitUntil: 'domcontentloaded' });
  await branches.getByLabel('beta', { exact: true }).waitFor({ timeout: 10_000 });
  expect(await branches.getByLabel('beta', { exact: true }).isChecked()).toBe(true);
  expect(await branches.getByLabel('main', { exact: true }).isChecked()).toBe(false);
  await branches.getByLabel('beta', { exact: true }).uncheck();
  expect(await until(async () => !(await betaIsPublic()))).toBe(true);
  await context.close();
}, 45_000);

test('store tags: typed and suggested tags become chips, problems show under the field, removal, save; a refused save says why and keeps the draft', async () => {
  const team = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: team.admin });
  await visit(page, `/projects/${team.project.id}/manage`, 'page_manage');
  const tags = section(page, 'manage_tags_heading');
  await tags.getByText(en('manage_tags_none'), { exact: true }).waitFor({ timeout: 10_000 });
  const field = tags.getByLabel(en('manage_tags_input_label'), { exact: true });
  const save = tags.getByRole('button', { name: en('manage_tags_save'), exact: true });
  expect(await save.isDisabled()).toBe(true);
  const chips = () => tags.locator('li[data-store-tag]').evaluateAll((items) => items.map((item) => item.getAttribute('data-store-tag')));

  // Typed, normalised as the server does it; then a suggestion, which leaves the suggestions.
  await field.fill('  Space   Opera ');
  await field.press('Enter');
  await tags.locator('li[data-store-tag="space opera"]').waitFor();
  expect(await field.inputValue()).toBe('');
  const suggestion = (tag: string) => tags.getByRole('button', { name: en('manage_tags_add_suggestion', { tag }), exact: true });
  await suggestion('puzzle').click();
  await tags.locator('li[data-store-tag="puzzle"]').waitFor();
  expect(await suggestion('puzzle').count()).toBe(0);
  expect(await chips()).toEqual(['space opera', 'puzzle']);

  // Problems under the field, tied to it, gone once the text changes.
  const expectProblem = async (text: string) => {
    const problem = tags.getByText(text, { exact: true });
    await problem.waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect((await field.getAttribute('aria-describedby')) ?? '').toContain((await problem.getAttribute('id')) ?? 'no id');
  };
  await field.fill('c++');
  await field.press('Enter');
  await expectProblem(en('manage_tags_problem_characters'));
  await field.fill(' PUZZLE ');
  await expect(tags.getByText(en('manage_tags_problem_characters'), { exact: true }).count()).resolves.toBe(0);
  await tags.getByRole('button', { name: en('manage_tags_add'), exact: true }).click();
  await expectProblem(en('manage_tags_problem_duplicate', { tag: 'puzzle' }));
  await field.fill('x'.repeat(25));
  await field.press('Enter');
  await expectProblem(en('manage_tags_problem_too_long', { length: '24' }));
  await field.fill('   ');
  await field.press('Enter');
  await expectProblem(en('manage_tags_problem_empty'));
  expect(await chips()).toEqual(['space opera', 'puzzle']);

  // Removing a chip keeps the focus in the section (on the field); nothing is saved before Save.
  await tags.getByRole('button', { name: en('manage_tags_remove', { tag: 'space opera' }), exact: true }).click();
  expect(await chips()).toEqual(['puzzle']);
  expect(await field.evaluate((element) => element === document.activeElement)).toBe(true);
  expect((await projectAs(team)).storeTags).toEqual([]);

  // Text left in the field is saved with the chips.
  await field.fill('Co-op');
  await save.click();
  await tags.getByRole('status').getByText(en('manage_tags_saved'), { exact: true }).waitFor({ timeout: 10_000 });
  expect((await projectAs(team)).storeTags).toEqual(['puzzle', 'co-op']);
  expect((await (await e2e.server.fetch(`/api/projects/${team.project.id}`, { token: team.owner.token })).json()).storeTags).toEqual(['puzzle', 'co-op']);
  await page.reload({ waitUntil: 'domcontentloaded' });
  await tags.locator('li[data-store-tag="co-op"]').waitFor({ timeout: 10_000 });
  expect(await chips()).toEqual(['puzzle', 'co-op']);

  // Ten at most: the eleventh is refused under the field.
  for (const tag of storeTagSuggestions.filter((tag) => tag !== 'puzzle' && tag !== 'co-op').slice(0, 8)) await suggestion(tag).click();
  expect(await chips()).toHaveLength(10);
  await field.fill('one more');
  await field.press('Enter');
  await expectProblem(en('manage_tags_problem_too_many', { max: '10' }));

  // The server refuses (the admin was made a developer meanwhile): the reason shows, the draft stays.
  await e2e.server.deps.db.update(projectUsers).set({ role: 'developer' }).where(and(eq(projectUsers.projectId, team.project.id), eq(projectUsers.userId, team.admin.id)));
  await field.fill('');
  await save.click();
  await tags.getByRole('alert').getByText(en('manage_tags_not_saved', { reason: en('error_insufficient_privileges') }), { exact: true }).waitFor({ timeout: 10_000 });
  expect(await chips()).toHaveLength(10);
  expect((await projectAs(team)).storeTags).toEqual(['puzzle', 'co-op']);
  await context.close();

  // Developers do not see the editor.
  const developer = await e2e.openSignedIn({ user: team.developer });
  await visit(developer.page, `/projects/${team.project.id}/manage`, 'page_manage');
  await section(developer.page, 'manage_members_heading').waitFor({ timeout: 10_000 });
  expect(await section(developer.page, 'manage_tags_heading').count()).toBe(0);
  await developer.context.close();
}, 60_000);

test('a developer leaves after confirming: lands on /projects, membership gone', async () => {
  const team = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: team.developer });
  await visit(page, `/projects/${team.project.id}/manage`, 'page_manage');
  await section(page, 'manage_leave_heading').getByRole('button', { name: en('manage_leave_button'), exact: true }).click();
  const dialog = openDialog(page);
  await dialog.getByRole('heading', { name: en('manage_leave_title', { project: team.project.title }), exact: true }).waitFor();
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(en('dialog_cancel'));
  await dialog.getByRole('button', { name: en('manage_leave_button'), exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/projects', { timeout: 10_000 });
  const members = await e2e.server.trpc(team.owner.token).projects.users.list.query({ project: team.project.id });
  expect(members.some((member) => member.user.id === team.developer.id)).toBe(false);
  await context.close();
}, 45_000);

test('the owner deletes the project by typing its title', async () => {
  const team = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: team.owner });
  await visit(page, `/projects/${team.project.id}/manage`, 'page_manage');
  // The owner cannot leave: no leave section.
  expect(await section(page, 'manage_leave_heading').count()).toBe(0);
  await section(page, 'manage_delete_heading').getByRole('button', { name: en('manage_delete_button'), exact: true }).click();
  const dialog = openDialog(page);
  const input = dialog.getByLabel(en('manage_delete_label'), { exact: true });
  await input.fill('not the title');
  await dialog.getByRole('button', { name: en('manage_delete_button'), exact: true }).click();
  await dialog.getByText(en('manage_delete_mismatch'), { exact: true }).waitFor();
  expect((await projectAs(team)).id).toBe(team.project.id);
  await input.fill(team.project.title);
  await dialog.getByRole('button', { name: en('manage_delete_button'), exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/projects', { timeout: 10_000 });
  await expect(projectAs(team)).rejects.toThrow();
  await context.close();
}, 45_000);

async function showFullManagePage(team: Team, page: Page): Promise<void> {
  await visit(page, `/projects/${team.project.id}/manage`, 'page_manage');
  await section(page, 'manage_members_heading').locator('li[data-user-id]').first().waitFor({ timeout: 10_000 });
  await section(page, 'manage_branches_heading').getByLabel('main', { exact: true }).waitFor({ timeout: 10_000 });
  await section(page, 'manage_invites_heading').locator('li[data-invite-id]').first().waitFor({ timeout: 10_000 });
}

async function richTeam(): Promise<Team> {
  const team = await makeTeam(e2e.server);
  const api = e2e.server.trpc(team.owner.token);
  await api.projects.branches.create.mutate({ project: team.project.id, title: 'main' });
  await api.projects.invites.create.mutate({ project: team.project.id, approved: false, seats: 5 });
  await addMember(e2e.server, team.project, await registerUser(e2e.server), 'tester', { pending: true });
  await api.projects.patch.mutate({ project: team.project.id, storeTags: ['puzzle', 'ролевая игра', 'ألغاز'] });
  return team;
}

for (const theme of ['light', 'dark'] as const) {
  test(`axe, ${theme} theme: the manage page (owner, every section) and the invite link dialog`, async () => {
    const team = await richTeam();
    const { page, context } = await e2e.openSignedIn({ user: team.owner, colorScheme: theme, storage: { theme } });
    await showFullManagePage(team, page);
    expect(await page.evaluate(() => document.documentElement.getAttribute('data-theme'))).toBe(theme);
    await page.waitForTimeout(150);
    let violations = await seriousAccessibilityViolations(page);
    if (violations.length > 0) throw new Error(formatViolations(violations, `manage (${theme})`));

    await section(page, 'manage_invites_heading').getByRole('button', { name: en('manage_invite_create'), exact: true }).click();
    const dialog = openDialog(page);
    await dialog.getByLabel(en('invite_link_expiry_on'), { exact: true }).check();
    await dialog.getByLabel(en('invite_link_seats_limit'), { exact: true }).check();
    await page.waitForTimeout(150);
    violations = await seriousAccessibilityViolations(page);
    if (violations.length > 0) throw new Error(formatViolations(violations, `invite link dialog (${theme})`));
    await context.close();
  }, 45_000);
}

test('in Arabic the manage page is right-to-left and translated', async () => {
  const team = await richTeam();
  const { page, context } = await e2e.openSignedIn({ user: team.owner, storage: { lang: rtlLanguage } });
  await visit(page, `/projects/${team.project.id}/manage`, 'page_manage');
  await page.getByRole('heading', { name: message(rtlLanguage, 'manage_members_heading'), exact: true }).waitFor({ timeout: 10_000 });
  expect(await page.evaluate(() => ({ dir: document.documentElement.dir, lang: document.documentElement.lang }))).toEqual({ dir: 'rtl', lang: rtlLanguage });
  expect(await page.locator('main h1').textContent()).toBe(message(rtlLanguage, 'manage_page_title').replace('{project}', team.project.title));
  await context.close();
}, 30_000);
