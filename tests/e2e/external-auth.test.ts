import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { BrowserContext, Page } from 'playwright-core';
import { registerUser } from '../support/accounts.ts';
import { authorizeAt, freshIdentity, started } from '../support/external-auth.ts';
import { startFakeProviders, type FakeProviderId, type FakeProviders } from '../support/fake-providers/index.ts';
import { createProject, makePublic, type TestProject } from '../support/projects.ts';
import { en, openDialog, section, startE2E, visit, waitForScreen, type E2E, type OpenOptions } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';

/**
 * Issue 15 in Chromium: external sign-in through the six fake providers (tests/support/fake-providers,
 * real protocols on loopback), the oauth route, linked credentials on /me and the store page.
 */
let e2e: E2E;
let fakes: FakeProviders;
let visitedProject: TestProject;

beforeAll(async () => {
  fakes = await startFakeProviders();
  e2e = await startE2E(fakes.env);
  const owner = await registerUser(e2e.server, 'ada_owner');
  visitedProject = await createProject(e2e.server, owner, 'Comet Courier');
  await makePublic(e2e.server, visitedProject, owner);
}, 90_000);
afterAll(async () => {
  await e2e?.close();
  await fakes?.close();
});

const providerNames: Record<FakeProviderId, string> = { steam: 'Steam', github: 'GitHub', gitlab: 'GitLab', itch: 'itch.io', twitch: 'Twitch', discord: 'Discord' };

/** A context whose pages never reach the internet: the providers' avatar addresses answer a tiny image here. */
async function open(options: OpenOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
  const opened = await e2e.open(options);
  await opened.context.route(/^https:\/\//, (route) =>
    route.fulfill({ contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1" height="1" fill="#888"/></svg>' }),
  );
  return opened;
}

const path = (page: Page) => new URL(page.url()).pathname + new URL(page.url()).search;

/** Opens the authentication dialog from the sign-in or register screen (or /me's link button) and picks a provider. */
async function chooseProvider(page: Page, opener: string, provider: FakeProviderId): Promise<void> {
  await page.getByRole('button', { name: opener, exact: true }).click();
  const dialog = openDialog(page);
  await dialog.waitFor();
  await dialog.getByRole('button', { name: en('auth_provider_button', { provider: providerNames[provider] }), exact: true }).click();
}

async function signedInAs(page: Page, title: string): Promise<void> {
  await page.locator('header', { hasText: en('auth_signed_in_as', { name: title }) }).waitFor({ timeout: 15_000 });
}

async function signOut(page: Page): Promise<void> {
  await page.locator('header').getByRole('button', { name: en('nav_sign_out'), exact: true }).click();
  await waitForScreen(page, 'page_home');
  await page.locator('header').getByRole('link', { name: en('nav_sign_in'), exact: true }).waitFor();
}

function credentialRow(page: Page, provider: string) {
  return page.locator(`li.credential_item[data-provider="${provider}"]`);
}

test('only configured providers are offered, each with its mark; the dialog passes axe in light and dark', async () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    const { page, context } = await open({ colorScheme, storage: { theme: colorScheme } });
    await visit(page, '/login', 'page_sign_in');
    await page.getByRole('button', { name: en('auth_other_providers_button'), exact: true }).click();
    const dialog = openDialog(page);
    await dialog.waitFor();
    const buttons = dialog.locator('ul.provider_list button');
    // itch.io only links (offered on /me), it never signs in.
    const signingIn = Object.entries(providerNames).filter(([id]) => id !== 'itch');
    expect((await buttons.allTextContents()).map((text) => text.trim())).toEqual(signingIn.map(([, provider]) => en('auth_provider_button', { provider })));
    expect(await dialog.locator('ul.provider_list button svg.provider_mark[aria-hidden="true"]').count()).toBe(5);
    const violations = await seriousAccessibilityViolations(page);
    expect(violations, formatViolations(violations, `authentication dialog (${colorScheme})`)).toEqual([]);
    await context.close();
  }
}, 60_000);

test('a visitor signs up with GitHub from a project page and lands back on it; links Steam and itch on /me; a public one shows on the store page', async () => {
  const { page, context } = await open();
  const github = { ...freshIdentity('github'), name: 'Octo Visitor' };
  fakes.signInAs('github', github);

  // From a public project's page: sign in, then 'Create one', then the other services.
  const projectPath = `/projects/${visitedProject.id}?from=e2e`;
  await visit(page, projectPath, 'page_project_overview');
  await page.locator('header').getByRole('link', { name: en('nav_sign_in'), exact: true }).click();
  await waitForScreen(page, 'page_sign_in');
  await page.getByRole('link', { name: en('auth_go_register'), exact: true }).click();
  await waitForScreen(page, 'page_register');
  await chooseProvider(page, en('auth_other_providers_button'), 'github');
  // GitHub approves at once and sends the browser back to /oauth, which registers and returns.
  await page.waitForURL((url) => url.pathname + url.search === projectPath, { timeout: 15_000 });
  await waitForScreen(page, 'page_project_overview');
  await signedInAs(page, 'Octo Visitor');
  expect(await page.evaluate(() => localStorage.getItem('externalAuth'))).toBeNull();
  expect(fakes.requests.some((request) => request.provider === 'github' && request.path === '/login/oauth/access_token')).toBe(true);

  // /me: the GitHub credential; link Steam (OpenID, the query) and itch (the fragment).
  await visit(page, '/me', 'page_me');
  await credentialRow(page, 'github').waitFor({ timeout: 10_000 });
  expect(await credentialRow(page, 'github').textContent()).toContain('GitHub');
  const steam = { ...freshIdentity('steam'), name: 'Valve Fan' };
  fakes.signInAs('steam', steam);
  await chooseProvider(page, en('me_credential_link'), 'steam');
  await page.waitForURL((url) => url.pathname === '/me', { timeout: 15_000 });
  await credentialRow(page, 'steam').waitFor({ timeout: 15_000 });
  expect(await credentialRow(page, 'steam').textContent()).toContain('Valve Fan');

  // The link dialog offers itch.io with a note that it does not sign in, and passes axe with it.
  await page.getByRole('button', { name: en('me_credential_link'), exact: true }).click();
  const linkDialog = openDialog(page);
  await linkDialog.waitFor();
  expect(await linkDialog.locator('.provider_note').allTextContents()).toEqual([en('auth_provider_link_only', { provider: 'itch.io' })]);
  const dialogViolations = await seriousAccessibilityViolations(page);
  expect(dialogViolations, formatViolations(dialogViolations, 'link dialog')).toEqual([]);
  await linkDialog.getByRole('button', { name: en('dialog_cancel'), exact: true }).click();
  await linkDialog.waitFor({ state: 'detached' });

  const itch = { ...freshIdentity('itch'), name: 'Jam Maker', profileUrl: 'https://jammaker.itch.io' };
  fakes.signInAs('itch', itch);
  await chooseProvider(page, en('me_credential_link'), 'itch');
  await page.waitForURL((url) => url.pathname === '/me', { timeout: 15_000 });
  await credentialRow(page, 'itch').waitFor({ timeout: 15_000 });
  expect(await page.locator('li.credential_item').count()).toBe(3);
  // A provider-only account may add a password sign-in.
  await section(page, 'me_credentials_heading').getByRole('button', { name: en('me_password_add'), exact: true }).waitFor();

  // /me credentials pass axe (light here; dark in the last test).
  const violations = await seriousAccessibilityViolations(page);
  expect(violations, formatViolations(violations, '/me credentials (light)')).toEqual([]);

  // Mark itch public; it shows on the store page of a project this user owns.
  const publicBox = credentialRow(page, 'itch').getByRole('checkbox');
  await publicBox.check();
  await page.waitForFunction(() => !document.querySelector('li.credential_item[data-provider="itch"] input[aria-busy]'));
  const token = await page.evaluate(async () => ((await (await fetch('/api/auth/session')).json()) as { authToken: string }).authToken);
  const session = (await (await e2e.server.fetch('/api/auth/session', { token })).json()) as { userInfo: { id: string } };
  // The account has no password: the helpers need only its bearer token and id.
  const self = { name: '', password: '', cookie: '', token, id: session.userInfo.id };
  const own = await createProject(e2e.server, self, 'Jam Game');
  await makePublic(e2e.server, own, self);
  await visit(page, `/store/${own.id}`, 'page_store_project');
  const profiles = page.locator('.store_credentials li');
  await profiles.first().waitFor({ timeout: 10_000 });
  expect(await profiles.count()).toBe(1);
  expect(await profiles.first().getAttribute('data-provider')).toBe('itch');
  expect(await profiles.first().locator('svg.provider_mark_itch').count()).toBe(1);
  expect(await profiles.first().getByRole('link').getAttribute('href')).toBe('https://jammaker.itch.io/');
  expect((await profiles.first().textContent()) ?? '').toContain('itch.io');
  await context.close();
}, 90_000);

test('a second account made with Discord: sign out, then sign in with Discord again', async () => {
  const { page, context } = await open();
  const discord = { ...freshIdentity('discord'), name: 'Wumpus Two' };
  fakes.signInAs('discord', discord);
  await visit(page, '/register', 'page_register');
  await chooseProvider(page, en('auth_other_providers_button'), 'discord');
  await page.waitForURL((url) => url.pathname === '/', { timeout: 15_000 });
  await signedInAs(page, 'Wumpus Two');

  await signOut(page);
  await visit(page, '/login', 'page_sign_in');
  await chooseProvider(page, en('auth_other_providers_button'), 'discord');
  await page.waitForURL((url) => url.pathname === '/', { timeout: 15_000 });
  await signedInAs(page, 'Wumpus Two');
  await visit(page, '/me', 'page_me');
  await credentialRow(page, 'discord').waitFor({ timeout: 10_000 });
  expect(await page.locator('li.credential_item').count()).toBe(1);
  expect(path(page)).toBe('/me');

  // Unlinking the only way in is refused with the reason, in words.
  await credentialRow(page, 'discord').getByRole('button', { name: new RegExp(`^${en('me_credential_unlink')}`) }).click();
  const confirm = openDialog(page);
  await confirm.waitFor();
  await confirm.getByRole('button', { name: en('me_credential_unlink'), exact: true }).click();
  const refused = page.locator('dialog[open]', { hasText: en('me_credential_unlink_refused_title') });
  await refused.waitFor({ timeout: 10_000 });
  expect(await refused.textContent()).toContain(en('me_credential_last_way_in'));
  await refused.getByRole('button', { name: en('dialog_ok'), exact: true }).click();

  // The dark theme: /me credentials pass axe too.
  await context.close();
  const dark = await open({ colorScheme: 'dark', storage: { theme: 'dark' } });
  fakes.signInAs('discord', discord);
  await visit(dark.page, '/login', 'page_sign_in');
  await chooseProvider(dark.page, en('auth_other_providers_button'), 'discord');
  await dark.page.waitForURL((url) => url.pathname === '/', { timeout: 15_000 });
  await signedInAs(dark.page, 'Wumpus Two');
  await visit(dark.page, '/me', 'page_me');
  await credentialRow(dark.page, 'discord').waitFor({ timeout: 10_000 });
  const violations = await seriousAccessibilityViolations(dark.page);
  expect(violations, formatViolations(violations, '/me credentials (dark)')).toEqual([]);
  await dark.context.close();
}, 90_000);

test('issue 29: Steam with no linked account says so and offers "Create an account with Steam", which signs up and returns; the page passes axe', async () => {
  const { page, context } = await open();
  const gamer = { ...freshIdentity('steam'), name: 'Lone Steamer' };
  fakes.signInAs('steam', gamer);
  const storePath = `/store/${visitedProject.id}`;
  await visit(page, storePath, 'page_store_project');
  await page.locator('header').getByRole('link', { name: en('nav_sign_in'), exact: true }).click();
  await waitForScreen(page, 'page_sign_in');
  await chooseProvider(page, en('auth_other_providers_button'), 'steam');
  // Steam approves, but no account here signs in with it.
  const hint = page.locator('main .oauth_hint[data-reason="no_account"]');
  await hint.waitFor({ timeout: 15_000 });
  expect(await hint.textContent()).toBe(en('oauth_no_account', { appName: 'Cartridge', provider: 'Steam' }));
  const alert = page.locator('main [role="alert"]');
  expect(await alert.textContent()).not.toContain(en('error_wrong_credentials'));
  expect(await alert.textContent()).not.toContain('Error:');
  const violations = await seriousAccessibilityViolations(page);
  expect(violations, formatViolations(violations, 'oauth refusal')).toEqual([]);

  await page.getByRole('button', { name: en('oauth_register_with', { provider: 'Steam' }), exact: true }).click();
  // The provider's sign-up: back on the page where it began, signed in as the Steam account.
  await page.waitForURL((url) => url.pathname === storePath, { timeout: 15_000 });
  await signedInAs(page, 'Lone Steamer');

  // Steam's avatar host unreachable: the initial in its place, no broken-image glyph.
  await context.route(/^https:\/\/avatars\.steamstatic\.com\//, (route) => route.abort('connectionfailed'));
  await visit(page, '/me', 'page_me');
  const row = credentialRow(page, 'steam');
  await row.locator('.credential_picture_none').waitFor({ timeout: 10_000 });
  expect(await row.locator('.credential_picture_none').textContent()).toBe('L');
  expect(await row.locator('img').count()).toBe(0);
  // It has a picture address: the initial stands for a picture that failed, not a missing one.
  const pictures = await page.evaluate(async () => {
    const session = (await (await fetch('/api/auth/session')).json()) as { authToken: string };
    const list = (await (await fetch('/api/users/me/credentials', { headers: { authorization: `Bearer ${session.authToken}` } })).json()) as { profilePictureUrl: string | null }[];
    return list.map((credential) => credential.profilePictureUrl);
  });
  expect(pictures).toEqual([expect.stringMatching(/^https:\/\/avatars\.steamstatic\.com\//)]);
  await context.close();
}, 60_000);

test('issue 29: a return address whose state is not this browser\'s sign-in: "stale or opened in another browser", and Try again starts the provider again', async () => {
  const { page, context } = await open();
  const octo = { ...freshIdentity('github'), name: 'Stale Linker' };
  fakes.signInAs('github', octo);
  // Someone else's sign-in link: a state this browser never stored.
  const start = await started(e2e.server, 'github', 'register');
  const back = await authorizeAt(start);
  await visit(page, '/register', 'page_register');
  await page.evaluate(() => localStorage.setItem('externalAuth', JSON.stringify({ token: 'xs_mine', returnTo: '/docs/en/', intent: 'register', provider: 'github' })));
  await page.goto(back.pathname + back.search);
  const hint = page.locator('main .oauth_hint[data-reason="state_mismatch"]');
  await hint.waitFor({ timeout: 15_000 });
  expect(await hint.textContent()).toBe(en('oauth_attempt_expired'));
  expect(await page.locator('main [role="alert"]').textContent()).not.toContain('Error:');
  await page.getByRole('button', { name: en('oauth_try_again'), exact: true }).click();
  // The same provider and intent again: GitHub approves, the account is made, back where it began.
  await page.waitForURL((url) => url.pathname === '/docs/en/', { timeout: 15_000 });
  await signedInAs(page, 'Stale Linker');
  await context.close();
}, 60_000);
