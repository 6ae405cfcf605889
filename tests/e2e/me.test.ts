import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { createApiToken, createProject } from '../support/projects.ts';
import { en, openDialog, section, startE2E, visit, type E2E } from './support/app.ts';
import { dayInFuture } from './support/time.ts';

/** Spec §2 'me': rename, sessions, API tokens (shown once, copyable, revocable), delete the account. */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

async function statusWithToken(token: string): Promise<number> {
  const response = await e2e.server.fetch('/api/users/me', { token });
  await response.arrayBuffer();
  return response.status;
}

/** Creates a token through the form and returns what the copy dialog shows (then closes it). */
async function createToken(page: Page, name: string, expiresOn?: string): Promise<string> {
  const tokens = section(page, 'me_tokens_heading');
  await tokens.getByLabel(en('me_token_name'), { exact: true }).fill(name);
  if (expiresOn) {
    await tokens.getByLabel(en('me_token_expiry_on_date'), { exact: true }).check();
    await tokens.getByLabel(en('me_token_expiry_date'), { exact: true }).fill(expiresOn);
  } else {
    await tokens.getByLabel(en('me_token_expiry_never'), { exact: true }).check();
  }
  await tokens.getByRole('button', { name: en('me_token_create'), exact: true }).click();

  // Shown once, in an OK-with-copyable-text dialog.
  const dialog = openDialog(page);
  await dialog.waitFor({ timeout: 10_000 });
  expect(await dialog.getByRole('heading').first().textContent()).toBe(en('me_token_created_title'));
  expect(await dialog.textContent()).toContain(en('me_token_created_text'));
  const field = dialog.locator('input[readonly]');
  const token = await field.inputValue();
  expect(token.length).toBeGreaterThanOrEqual(20);
  expect(await field.evaluate((element) => (element as HTMLInputElement).labels?.length ?? 0)).toBeGreaterThan(0);
  await dialog.getByRole('button', { name: en('dialog_copy'), exact: true }).click();
  await dialog.getByRole('button', { name: en('dialog_copied'), exact: true }).waitFor({ timeout: 5_000 });
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
  await dialog.getByRole('button', { name: en('dialog_ok'), exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 5_000 });
  // Never shown again: the page holds the token nowhere once the dialog is gone.
  expect(await page.content()).not.toContain(token);
  return token;
}

test('rename the profile; the new name shows and persists', async () => {
  const { page, context, user } = await e2e.openSignedIn();
  await visit(page, '/me', 'page_me');
  expect(await page.title()).toBe(`${en('me_title')} - Cartridge`);
  const title = page.locator('[data-testid="profile-title"]');
  await title.waitFor();
  expect(await title.textContent()).toBe(user.name);

  await section(page, 'me_profile_heading').getByRole('button', { name: en('me_rename'), exact: true }).click();
  const dialog = openDialog(page);
  await dialog.waitFor();
  const input = dialog.getByLabel(en('me_rename_label'), { exact: true });
  expect(await input.evaluate((element) => element === document.activeElement)).toBe(true);
  expect(await input.inputValue()).toBe(user.name);
  await input.fill('Grace Hopper');
  await dialog.getByRole('button', { name: en('me_rename'), exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.locator('[data-testid="profile-title"]', { hasText: 'Grace Hopper' }).waitFor({ timeout: 10_000 });

  const me = await (await e2e.server.fetch('/api/users/me', { token: user.token })).json();
  expect(me.title).toBe('Grace Hopper');
  await page.reload({ waitUntil: 'domcontentloaded' });
  await page.locator('[data-testid="profile-title"]', { hasText: 'Grace Hopper' }).waitFor({ timeout: 10_000 });
  // The home page greets with the new name too.
  await visit(page, '/');
  expect(await page.locator('main h1').textContent()).toBe(en('home_welcome', { name: 'Grace Hopper' }));
  await context.close();
}, 30_000);

test('API tokens: created with an expiry and with never, shown once with copy, revoked and dead', async () => {
  const { page, context, user } = await e2e.openSignedIn({ permissions: ['clipboard-read', 'clipboard-write'] });
  await visit(page, '/me', 'page_me');
  const tokens = section(page, 'me_tokens_heading');
  await tokens.getByText(en('me_tokens_empty'), { exact: true }).waitFor({ timeout: 10_000 });

  const expiring = await createToken(page, 'ci deploy', dayInFuture(30));
  const forever = await createToken(page, 'forever script');
  expect(expiring).not.toBe(forever);
  expect(await statusWithToken(expiring)).toBe(200);
  expect(await statusWithToken(forever)).toBe(200);

  // Both listed; the expiring one with a date, the other with 'Never'.
  const expiringRow = tokens.locator('li.item', { hasText: 'ci deploy' });
  const foreverRow = tokens.locator('li.item', { hasText: 'forever script' });
  await expiringRow.waitFor({ timeout: 10_000 });
  await foreverRow.waitFor();
  expect(await tokens.locator('li.item').count()).toBe(2);
  // The facts: Created, Last used, Expires (issue 29: a token is created, not started).
  expect(await foreverRow.locator('dt').allTextContents()).toEqual([en('me_token_created'), en('me_session_last_used'), en('me_session_expires')]);
  expect(await foreverRow.locator('dd').nth(2).textContent()).toBe(en('me_session_never'));
  expect(await expiringRow.locator('dd').nth(2).textContent()).not.toBe(en('me_session_never'));
  const listed = await (await e2e.server.fetch('/api/users/me/sessions', { token: user.token })).json();
  const expiringListed = listed.find((item: { title: string }) => item.title === 'ci deploy');
  const foreverListed = listed.find((item: { title: string }) => item.title === 'forever script');
  expect(foreverListed.expiration).toBeNull();
  const days = (Date.parse(expiringListed.expiration) - Date.now()) / 86_400_000;
  expect(days).toBeGreaterThan(29);
  expect(days).toBeLessThan(32);

  // Revoke the never-expiring one: danger confirmation (focus on Cancel), then it is gone and dead.
  await foreverRow.getByRole('button', { name: `${en('me_token_delete')}: forever script` }).click();
  const confirm = openDialog(page);
  await confirm.waitFor();
  expect(await confirm.getAttribute('class')).toContain('dialog_danger');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(en('dialog_cancel'));
  await confirm.getByRole('button', { name: en('me_token_delete'), exact: true }).click();
  await foreverRow.waitFor({ state: 'detached', timeout: 10_000 });
  expect(await statusWithToken(forever)).toBe(401);
  expect(await statusWithToken(expiring)).toBe(200);

  // A past expiry date is refused before anything is created.
  await tokens.getByLabel(en('me_token_expiry_on_date'), { exact: true }).check();
  await tokens.getByLabel(en('me_token_expiry_date'), { exact: true }).fill('2001-01-01');
  await tokens.getByRole('button', { name: en('me_token_create'), exact: true }).click();
  // Either the browser's own validation (min=today) or the form's message stops it; no dialog opens.
  await page.waitForTimeout(300);
  expect(await openDialog(page).count()).toBe(0);
  expect(await tokens.locator('li.item').count()).toBe(1);
  await context.close();
}, 45_000);

test('sessions list shows the current session; another session can be revoked', async () => {
  const { page, context, user } = await e2e.openSignedIn();
  // A second browser session of the same user.
  const other = await e2e.server.fetch('/api/auth/password', { method: 'POST', json: { name: user.name, password: user.password, intent: 'login' } });
  const otherToken = ((await other.json()) as { authToken: string }).authToken;
  expect(await statusWithToken(otherToken)).toBe(200);

  await visit(page, '/me', 'page_me');
  const sessions = section(page, 'me_sessions_heading');
  const rows = sessions.locator('li.item');
  await rows.nth(1).waitFor({ timeout: 10_000 });
  expect(await rows.count()).toBe(2);
  const current = sessions.locator('li.item', { hasText: en('me_session_current') });
  expect(await current.count()).toBe(1);
  // The current session cannot be revoked from here (sign out does that); the other one can.
  expect(await current.getByRole('button').count()).toBe(0);
  const otherRow = sessions.locator('li.item', { hasNotText: en('me_session_current') });
  await otherRow.getByRole('button', { name: new RegExp(`^${en('me_session_revoke')}`) }).click();
  const confirm = openDialog(page);
  await confirm.waitFor();
  await confirm.getByRole('button', { name: en('me_session_revoke'), exact: true }).click();
  await otherRow.waitFor({ state: 'detached', timeout: 10_000 });
  expect(await rows.count()).toBe(1);
  expect(await statusWithToken(otherToken)).toBe(401);
  expect(await statusWithToken(user.token)).toBe(200);
  await context.close();
}, 30_000);

test('delete the account after the danger confirmation', async () => {
  const { page, context, user } = await e2e.openSignedIn();
  await visit(page, '/me', 'page_me');
  const danger = section(page, 'me_danger_heading');
  await danger.getByRole('button', { name: en('me_delete_button'), exact: true }).click();
  const confirm = openDialog(page);
  await confirm.waitFor();
  expect(await confirm.getAttribute('class')).toContain('dialog_danger');
  expect(await confirm.getAttribute('role')).toBe('alertdialog');
  expect(await confirm.textContent()).toContain(en('me_delete_confirm_text', { name: user.name }));
  // Default focus on Cancel for a dangerous action; cancelling keeps the account.
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(en('dialog_cancel'));
  await confirm.getByRole('button', { name: en('dialog_cancel'), exact: true }).click();
  await confirm.waitFor({ state: 'detached' });
  expect(await statusWithToken(user.token)).toBe(200);

  await danger.getByRole('button', { name: en('me_delete_button'), exact: true }).click();
  await openDialog(page).getByRole('button', { name: en('me_delete_button'), exact: true }).click();
  await page.locator('main h1', { hasText: en('home_heading') }).waitFor({ timeout: 10_000 });
  expect(new URL(page.url()).pathname).toBe('/');
  expect(await statusWithToken(user.token)).toBe(401);
  const again = await e2e.server.fetch('/api/auth/password', { method: 'POST', json: { name: user.name, password: user.password, intent: 'login' } });
  expect(again.status).toBe(401);
  await context.close();
}, 30_000);

test('an owner of projects sees them with what to do instead of a delete that can only fail (issue 13)', async () => {
  const { page, context, user } = await e2e.openSignedIn();
  const project = await createProject(e2e.server, user, 'Moon Base');
  await visit(page, '/me', 'page_me');
  const danger = section(page, 'me_danger_heading');
  const owned = danger.locator('[data-testid="me-owned-projects"]');
  await owned.waitFor({ timeout: 10_000 });
  expect(await danger.textContent()).toContain(en('me_delete_blocked_one'));
  const link = owned.getByRole('link', { name: 'Moon Base', exact: true });
  expect(await link.getAttribute('href')).toBe(`/projects/${project.id}/manage`);
  expect(await danger.getByRole('button', { name: en('me_delete_button'), exact: true }).count()).toBe(0);

  // Once the project is gone, the account can be deleted.
  expect((await e2e.server.fetch(`/api/projects/${project.id}`, { method: 'DELETE', token: user.token })).status).toBe(200);
  await page.reload({ waitUntil: 'domcontentloaded' });
  await danger.getByRole('button', { name: en('me_delete_button'), exact: true }).waitFor({ timeout: 10_000 });
  expect(await owned.count()).toBe(0);
  await context.close();
}, 30_000);

test('a project created after the page loaded: the refusal names it, offers no Retry, and the page then lists it', async () => {
  const { page, context, user } = await e2e.openSignedIn();
  await visit(page, '/me', 'page_me');
  const danger = section(page, 'me_danger_heading');
  await danger.getByRole('button', { name: en('me_delete_button'), exact: true }).waitFor({ timeout: 10_000 });
  const late = await createProject(e2e.server, user, 'Late Project');
  await danger.getByRole('button', { name: en('me_delete_button'), exact: true }).click();
  await openDialog(page).getByRole('button', { name: en('me_delete_button'), exact: true }).click();
  const refused = page.locator('dialog[open]', { has: page.getByRole('heading', { name: en('me_delete_blocked_title'), exact: true }) });
  await refused.waitFor({ timeout: 10_000 });
  expect(await refused.textContent()).toContain(en('me_delete_blocked_one'));
  expect(await refused.getByRole('link', { name: 'Late Project', exact: true }).getAttribute('href')).toBe(`/projects/${late.id}/manage`);
  expect(await refused.getByRole('button', { name: en('dialog_retry'), exact: true }).count()).toBe(0);
  expect(await refused.textContent()).not.toContain(en('error_not_empty'));
  await refused.getByRole('button', { name: en('dialog_ok'), exact: true }).click();
  await danger.locator('[data-testid="me-owned-projects"]').getByRole('link', { name: 'Late Project', exact: true }).waitFor({ timeout: 10_000 });
  expect(await statusWithToken(user.token)).toBe(200);
  await context.close();
}, 30_000);

test('layout: the new token heading keeps its distance from the token list; the copy dialog has no empty gap (issue 13)', async () => {
  const { page, context, user } = await e2e.openSignedIn();
  await createApiToken(e2e.server, user);
  await visit(page, '/me', 'page_me');
  const tokens = section(page, 'me_tokens_heading');
  const list = tokens.locator('ul.item_list');
  await list.waitFor({ timeout: 10_000 });
  const listBox = (await list.boundingBox())!;
  const headingBox = (await tokens.getByRole('heading', { name: en('me_token_form_heading'), exact: true }).boundingBox())!;
  expect(headingBox.y - (listBox.y + listBox.height)).toBeGreaterThanOrEqual(16);

  await tokens.getByRole('button', { name: en('me_token_create'), exact: true }).click();
  const dialog = openDialog(page);
  await dialog.waitFor({ timeout: 10_000 });
  const fieldBox = (await dialog.locator('input[readonly]').boundingBox())!;
  const okBox = (await dialog.getByRole('button', { name: en('dialog_ok'), exact: true }).boundingBox())!;
  // Only the actions' own margin between the field and OK, no reserved empty line.
  expect(okBox.y - (fieldBox.y + fieldBox.height)).toBeLessThanOrEqual(28);
  await context.close();
}, 30_000);
