import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { registerUser } from '../support/accounts.ts';
import { makeTeam } from '../support/projects.ts';
import { en, openDialog, section, startE2E, visit, type E2E } from './support/app.ts';
import { dayInFuture } from './support/time.ts';

/** Spec §2 manage: one-time invite, invite links (create dialog with its settings, list, delete). */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

/** Reads the link out of the copy dialog, checks its form, closes the dialog; returns the token. */
async function takeLinkFromDialog(page: Page, titleKey: string, textKey: string): Promise<string> {
  const dialog = openDialog(page);
  await dialog.getByRole('heading', { name: en(titleKey), exact: true }).waitFor({ timeout: 10_000 });
  expect(await dialog.textContent()).toContain(en(textKey));
  const link = await dialog.locator('input[readonly]').inputValue();
  const url = new URL(link);
  expect(url.origin).toBe(new URL(e2e.baseURL).origin);
  expect(url.pathname).toBe('/invite');
  const token = url.searchParams.get('token') ?? '';
  expect(token.length).toBeGreaterThan(10);
  await dialog.getByRole('button', { name: en('dialog_ok'), exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  return token;
}

test('one-time invite: the link lets a second user join once, right away', async () => {
  const team = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: team.admin });
  await visit(page, `/projects/${team.project.id}/manage`, 'page_manage');
  const oneTime = section(page, 'manage_onetime_heading');
  expect(await oneTime.textContent()).toContain(en('manage_onetime_intro'));
  await oneTime.getByRole('button', { name: en('manage_onetime_create'), exact: true }).click();
  const token = await takeLinkFromDialog(page, 'manage_onetime_created_title', 'manage_onetime_created_text');

  // Listed among the invite links with its one-time marker, 24 hours and one seat.
  const listed = await e2e.server.trpc(team.owner.token).projects.invites.list.query({ project: team.project.id });
  expect(listed).toHaveLength(1);
  expect(listed[0]).toMatchObject({ oneTime: true, approved: true, seats: 1, uses: 0 });
  const hours = (Date.parse(listed[0]!.expires!) - Date.now()) / 3_600_000;
  expect(hours).toBeGreaterThan(23.5);
  expect(hours).toBeLessThanOrEqual(24);
  const row = section(page, 'manage_invites_heading').locator(`li[data-invite-id="${listed[0]!.id}"]`);
  await row.waitFor({ timeout: 10_000 });
  expect(await row.textContent()).toContain(en('manage_invite_one_time'));
  expect(await row.locator('[data-fact="seats"]').textContent()).toBe('0/1');

  // A second user opens the link in their own browser and joins.
  const guest = await registerUser(e2e.server);
  const second = await e2e.openSignedIn({ user: guest });
  await visit(second.page, `/invite?token=${encodeURIComponent(token)}`, 'page_invite');
  await second.page.getByText(en('invite_page_invited', { project: team.project.title })).waitFor({ timeout: 10_000 });
  await second.page.getByRole('button', { name: en('invite_page_join'), exact: true }).click();
  const members = async () => await e2e.server.trpc(team.owner.token).projects.users.list.query({ project: team.project.id });
  const deadline = Date.now() + 10_000;
  while (!(await members()).some((user) => user.user.id === guest.id) && Date.now() < deadline) await Bun.sleep(100);
  expect((await members()).find((user) => user.user.id === guest.id)).toMatchObject({ role: 'tester', pending: false });

  // It worked once: a third user is refused.
  const third = await registerUser(e2e.server);
  await expect(e2e.server.trpc(third.token).projects.invites.join.mutate({ token })).rejects.toThrow();
  // The admin's list now shows the seat taken and the link no longer usable.
  await page.reload({ waitUntil: 'domcontentloaded' });
  await row.locator('[data-fact="seats"]', { hasText: '1/1' }).waitFor({ timeout: 10_000 });
  expect(await row.textContent()).toContain(en('manage_invite_inactive'));
  await second.context.close();
  await context.close();
}, 60_000);

test('invite link dialog: admin approval, an expiry date and a seat limit; then the defaults', async () => {
  const team = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: team.owner });
  await visit(page, `/projects/${team.project.id}/manage`, 'page_manage');
  const invites = section(page, 'manage_invites_heading');
  await invites.getByText(en('manage_invites_empty'), { exact: true }).waitFor({ timeout: 10_000 });
  expect(await invites.textContent()).toContain(en('manage_invites_approval_intro'));

  await invites.getByRole('button', { name: en('manage_invite_create'), exact: true }).click();
  let dialog = openDialog(page);
  await dialog.getByRole('heading', { name: en('invite_link_title'), exact: true }).waitFor();
  // Spec §9 defaults: no expiry, no seat limit (and immediate joining).
  expect(await dialog.getByLabel(en('invite_link_expiry_never'), { exact: true }).isChecked()).toBe(true);
  expect(await dialog.getByLabel(en('invite_link_seats_none'), { exact: true }).isChecked()).toBe(true);
  expect(await dialog.getByLabel(en('invite_link_immediate'), { exact: true }).isChecked()).toBe(true);

  await dialog.getByLabel(en('invite_link_expiry_on'), { exact: true }).check();
  await dialog.getByLabel(en('invite_link_date'), { exact: true }).fill(dayInFuture(10));
  await dialog.getByLabel(en('invite_link_admin'), { exact: true }).check();
  await dialog.getByLabel(en('invite_link_seats_limit'), { exact: true }).check();
  // An empty seat count is refused in the dialog, nothing is created.
  await dialog.getByRole('button', { name: en('invite_link_create'), exact: true }).click();
  await dialog.getByText(en('invite_link_seats_invalid'), { exact: true }).waitFor();
  expect(await e2e.server.trpc(team.owner.token).projects.invites.list.query({ project: team.project.id })).toHaveLength(0);
  await dialog.getByLabel(en('invite_link_seats_count'), { exact: true }).fill('3');
  await dialog.getByRole('button', { name: en('invite_link_create'), exact: true }).click();
  const token = await takeLinkFromDialog(page, 'invite_link_created_title', 'invite_link_created_text');

  let listed = await e2e.server.trpc(team.owner.token).projects.invites.list.query({ project: team.project.id });
  expect(listed).toHaveLength(1);
  expect(listed[0]).toMatchObject({ approved: false, seats: 3, uses: 0, oneTime: false });
  const days = (Date.parse(listed[0]!.expires!) - Date.now()) / 86_400_000;
  expect(days).toBeGreaterThan(9.9);
  expect(days).toBeLessThan(11.1);
  const limited = invites.locator(`li[data-invite-id="${listed[0]!.id}"]`);
  await limited.waitFor({ timeout: 10_000 });
  expect(await limited.locator('[data-fact="approval"]').textContent()).toBe(en('manage_invite_approval_admin'));
  expect(await limited.locator('[data-fact="seats"]').textContent()).toBe('0/3');
  expect(await limited.locator('[data-fact="expires"]').textContent()).not.toBe(en('manage_invite_never'));

  // Someone joins through it: pending under Team members until approved.
  const joiner = await registerUser(e2e.server);
  expect(await e2e.server.trpc(joiner.token).projects.invites.join.mutate({ token })).toMatchObject({ pending: true });
  await page.reload({ waitUntil: 'domcontentloaded' });
  const pendingRow = section(page, 'manage_members_heading').locator(`li[data-user-id="${joiner.id}"]`);
  await pendingRow.locator('.badge', { hasText: en('manage_pending') }).waitFor({ timeout: 10_000 });
  await limited.locator('[data-fact="seats"]', { hasText: '1/3' }).waitFor({ timeout: 10_000 });

  // The defaults: never expires, immediate, no limit.
  await invites.getByRole('button', { name: en('manage_invite_create'), exact: true }).click();
  dialog = openDialog(page);
  await dialog.getByRole('button', { name: en('invite_link_create'), exact: true }).click();
  await takeLinkFromDialog(page, 'invite_link_created_title', 'invite_link_created_text');
  listed = await e2e.server.trpc(team.owner.token).projects.invites.list.query({ project: team.project.id });
  expect(listed).toHaveLength(2);
  expect(listed[1]).toMatchObject({ approved: true, seats: null, expires: null, oneTime: false });
  const open = invites.locator(`li[data-invite-id="${listed[1]!.id}"]`);
  await open.waitFor({ timeout: 10_000 });
  expect(await open.locator('[data-fact="expires"]').textContent()).toBe(en('manage_invite_never'));
  expect(await open.locator('[data-fact="approval"]').textContent()).toBe(en('manage_invite_approval_immediate'));
  expect(await open.locator('[data-fact="seats"]').textContent()).toBe(en('manage_invite_uses_unlimited', { uses: '0' }));
  await context.close();
}, 60_000);

test('delete an invite link after confirming; the link stops working', async () => {
  const team = await makeTeam(e2e.server);
  const created = await e2e.server.trpc(team.owner.token).projects.invites.create.mutate({ project: team.project.id });
  const { page, context } = await e2e.openSignedIn({ user: team.admin });
  await visit(page, `/projects/${team.project.id}/manage`, 'page_manage');
  const row = section(page, 'manage_invites_heading').locator(`li[data-invite-id="${created.id}"]`);
  await row.waitFor({ timeout: 10_000 });
  await row.getByRole('button', { name: new RegExp(`^${en('manage_invite_delete')}: `) }).click();
  const dialog = openDialog(page);
  await dialog.waitFor();
  expect(await dialog.getAttribute('class')).toContain('dialog_danger');
  expect(await dialog.textContent()).toContain(en('manage_invite_delete_text'));
  await dialog.getByRole('button', { name: en('manage_invite_delete'), exact: true }).click();
  await row.waitFor({ state: 'detached', timeout: 10_000 });
  await section(page, 'manage_invites_heading').getByText(en('manage_invites_empty'), { exact: true }).waitFor();
  expect(await e2e.server.trpc(team.owner.token).projects.invites.list.query({ project: team.project.id })).toHaveLength(0);
  const late = await registerUser(e2e.server);
  await expect(e2e.server.trpc(late.token).projects.invites.join.mutate({ token: created.token })).rejects.toThrow();
  await context.close();
}, 45_000);
