import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { addMember, createProject, type TestProject } from '../support/projects.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';
import { en, message, startE2E, visit, type E2E } from './support/app.ts';

/** Spec §2 invite?token=…: invited to join (Join) or already a member; unusable invites explained. */
let e2e: E2E;
let owner: TestUser;
let project: TestProject;

beforeAll(async () => {
  e2e = await startE2E();
  await registerUser(e2e.server, 'admin');
  owner = await registerUser(e2e.server);
  project = await createProject(e2e.server, owner, 'Moon Base');
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

async function createInvite(body: Record<string, unknown> = {}): Promise<string> {
  const response = await e2e.server.fetch(`/api/projects/${project.id}/invites`, { method: 'POST', token: owner.token, json: body });
  if (response.status !== 200) throw new Error(`create invite: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

const invitePath = (token: string) => `/invite?token=${encodeURIComponent(token)}`;

async function membership(user: TestUser) {
  const members = await e2e.server.trpc(owner.token).projects.users.list.query({ project: project.id });
  return members.find((member: { user: { id: string } }) => member.user.id === user.id);
}

function joinButton(page: Page) {
  return page.getByRole('button', { name: en('invite_page_join'), exact: true });
}

test('signed out: the project and Sign in / Register, which come back to the invite', async () => {
  const token = await createInvite();
  const { page, context } = await e2e.open();
  await visit(page, invitePath(token), 'page_invite');
  expect(await page.title()).toBe(`${en('invite_page_title')} - Cartridge`);
  expect(await page.locator('nav.breadcrumb li').allTextContents()).toEqual([en('nav_home'), en('invite_page_title')]);
  await page.getByText(en('invite_page_invited', { project: 'Moon Base' }), { exact: true }).waitFor({ timeout: 10_000 });
  expect(await page.locator('main').getByRole('link', { name: en('invite_page_register'), exact: true }).getAttribute('href')).toBe('/register');
  expect(await joinButton(page).count()).toBe(0);

  await page.locator('main').getByRole('link', { name: en('invite_page_sign_in'), exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/login', { timeout: 10_000 });
  expect(await page.evaluate(() => sessionStorage.getItem('returnTo'))).toBe(invitePath(token));

  // Signing in returns to the invite, now with Join.
  const user = await registerUser(e2e.server);
  await page.getByLabel(en('auth_user_name'), { exact: true }).fill(user.name);
  await page.getByLabel(en('auth_password'), { exact: true }).fill(user.password);
  await page.getByRole('button', { name: en('auth_sign_in_submit'), exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/invite' && url.searchParams.get('token') === token, { timeout: 10_000 });
  await joinButton(page).waitFor({ timeout: 10_000 });
  await context.close();
}, 30_000);

test('joining an approved invite lands on the project page as a member', async () => {
  const token = await createInvite({ approved: true });
  const { page, context, user } = await e2e.openSignedIn();
  await visit(page, invitePath(token), 'page_invite');
  await page.getByText(en('invite_page_invited', { project: 'Moon Base' }), { exact: true }).waitFor({ timeout: 10_000 });
  expect(await page.getByText(en('invite_page_needs_approval'), { exact: true }).count()).toBe(0);
  await joinButton(page).click();
  await page.waitForURL((url) => url.pathname === `/projects/${project.id}`, { timeout: 10_000 });
  expect(await membership(user)).toMatchObject({ pending: false });
  await context.close();
}, 30_000);

test('an invite needing approval leaves a pending membership and says so', async () => {
  const token = await createInvite({ approved: false });
  const { page, context, user } = await e2e.openSignedIn();
  await visit(page, invitePath(token), 'page_invite');
  await page.getByText(en('invite_page_needs_approval'), { exact: true }).waitFor({ timeout: 10_000 });
  await joinButton(page).click();
  await page.getByText(en('invite_page_pending', { project: 'Moon Base' }), { exact: true }).waitFor({ timeout: 10_000 });
  expect(new URL(page.url()).pathname).toBe('/invite');
  expect(await membership(user)).toMatchObject({ pending: true });

  // Coming back: no Join (spec §5), the request is waiting for approval.
  await visit(page, invitePath(token), 'page_invite');
  await page.getByText(en('invite_page_awaiting', { project: 'Moon Base' }), { exact: true }).waitFor({ timeout: 10_000 });
  expect(await joinButton(page).count()).toBe(0);
  await context.close();
}, 30_000);

test('a member sees "already a member" with a link to the project and no Join', async () => {
  const token = await createInvite();
  const member = await registerUser(e2e.server);
  await addMember(e2e.server, project, member, 'developer');
  const { page, context } = await e2e.openSignedIn({ user: member });
  await visit(page, invitePath(token), 'page_invite');
  await page.getByText(en('invite_page_already_member', { project: 'Moon Base' }), { exact: true }).waitFor({ timeout: 10_000 });
  expect(await joinButton(page).count()).toBe(0);
  expect(await page.getByRole('link', { name: en('invite_page_open_project'), exact: true }).getAttribute('href')).toBe(`/projects/${project.id}`);
  await context.close();
}, 30_000);

test('a one-time invite admits one person; the next sees "cannot be used"', async () => {
  const token = await createInvite({ oneTime: true });
  const first = await e2e.openSignedIn();
  await visit(first.page, invitePath(token), 'page_invite');
  await joinButton(first.page).click();
  await first.page.waitForURL((url) => url.pathname === `/projects/${project.id}`, { timeout: 10_000 });
  await first.context.close();

  const { page, context } = await e2e.openSignedIn();
  await visit(page, invitePath(token), 'page_invite');
  await page.getByRole('heading', { name: en('invite_page_unusable_heading'), exact: true }).waitFor({ timeout: 10_000 });
  expect(await page.locator('.invite_unusable [role="alert"]').textContent()).toBe(en('invite_page_unusable_used'));
  expect(await joinButton(page).count()).toBe(0);

  // An unknown token is explained too.
  await visit(page, invitePath('ci_unknown'), 'page_invite');
  await page.getByRole('heading', { name: en('invite_page_unusable_heading'), exact: true }).waitFor({ timeout: 10_000 });
  expect(await page.locator('.invite_unusable [role="alert"]').textContent()).toBe(en('invite_page_unusable_unknown'));
  await context.close();
}, 30_000);

test('a used-up invite refused at Join shows the error screen', async () => {
  const token = await createInvite({ seats: 1 });
  const { page, context } = await e2e.openSignedIn();
  await visit(page, invitePath(token), 'page_invite');
  await joinButton(page).waitFor({ timeout: 10_000 });
  // Someone else takes the last seat while the page is open.
  const other = await registerUser(e2e.server);
  const taken = await e2e.server.fetch(`/api/invites?token=${encodeURIComponent(token)}`, { method: 'POST', token: other.token });
  expect(taken.status).toBe(200);
  await joinButton(page).click();
  await page.getByRole('heading', { name: en('invite_page_unusable_heading'), exact: true }).waitFor({ timeout: 10_000 });
  expect(await page.locator('.invite_unusable [role="alert"]').textContent()).toBe(en('invite_page_unusable_used'));
  await context.close();
}, 30_000);

test('no token: a clear message', async () => {
  const { page, context } = await e2e.open();
  await visit(page, '/invite', 'page_invite');
  expect(await page.locator('.invite_missing_token').textContent()).toBe(en('invite_page_missing_token'));
  await context.close();
}, 30_000);

for (const theme of ['light', 'dark'] as const) {
  test(`axe, ${theme} theme: invite page signed out and signed in`, async () => {
    const token = await createInvite({ approved: false });
    for (const signedIn of [false, true]) {
      const options = { colorScheme: theme, storage: { theme } } as const;
      const { page, context } = signedIn ? await e2e.openSignedIn(options) : await e2e.open(options);
      await visit(page, invitePath(token), 'page_invite');
      await page.locator('.invite_card').waitFor({ timeout: 10_000 });
      await page.waitForTimeout(150);
      const violations = await seriousAccessibilityViolations(page);
      if (violations.length) throw new Error(formatViolations(violations, `invite (${theme}, signed in: ${signedIn})`));
      await context.close();
    }
  }, 30_000);
}

test('Arabic: right-to-left with translated texts', async () => {
  const token = await createInvite();
  const { page, context } = await e2e.open({ storage: { lang: 'ar' } });
  await visit(page, invitePath(token), 'page_invite');
  await page.locator('.invite_card').waitFor({ timeout: 10_000 });
  expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
  expect(await page.locator('main h1').textContent()).toBe(message('ar', 'invite_page_heading'));
  await context.close();
}, 30_000);
