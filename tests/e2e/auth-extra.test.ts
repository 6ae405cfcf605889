import { afterAll, beforeAll, expect, test } from 'bun:test';
import { registerUser } from '../support/accounts.ts';
import { startTestServer } from '../support/server.ts';
import { en, openDialog, startE2E, visit, waitForScreen, type E2E } from './support/app.ts';

/** Issue 4 auth UI: the six external providers (server side not there yet) and an instance that requires sign-in. */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

const providers = ['Steam', 'GitHub', 'GitLab', 'itch.io', 'Twitch', 'Discord'];

test('the authentication dialog offers the six providers; choosing one shows not_supported cleanly', async () => {
  const { page, context } = await e2e.open();
  await visit(page, '/login', 'page_sign_in');
  await page.getByRole('button', { name: en('auth_other_providers_button'), exact: true }).click();
  const dialog = openDialog(page);
  await dialog.waitFor();
  expect(await dialog.getByRole('heading').first().textContent()).toBe(en('auth_provider_dialog_title'));
  const names = (await dialog.locator('ul button').allTextContents()).map((text) => text.trim());
  expect(names).toEqual(providers.map((provider) => en('auth_provider_button', { provider })));

  await dialog.locator('ul button').nth(1).click();
  // The provider dialog gives way to the error dialog: header 'Error', 'Error: {text}.', code not_supported.
  const error = page.locator('dialog[open].dialog_error');
  await error.waitFor({ timeout: 10_000 });
  expect(await error.getByRole('heading').first().textContent()).toBe(en('dialog_error_title'));
  const body = error.locator('[data-error-code]');
  expect(await body.getAttribute('data-error-code')).toBe('not_supported');
  expect((await body.textContent()) ?? '').toMatch(/^Error: .+\.$/);
  await error.getByRole('button', { name: en('dialog_ok'), exact: true }).click();
  await error.waitFor({ state: 'detached' });
  expect(await openDialog(page).count()).toBe(0);
  expect(new URL(page.url()).pathname).toBe('/login');
  await context.close();
}, 30_000);

test('an instance with AUTH_REQUIRED shows sign-in on every page and stays on the page afterwards', async () => {
  const server = await startTestServer({ AUTH_REQUIRED: 'true' });
  try {
    const user = await registerUser(server);
    const context = await e2e.browser.newContext({ baseURL: server.url, locale: 'en-US' });
    try {
      const page = await context.newPage();
      await page.goto('/experiment?x=1', { waitUntil: 'domcontentloaded' });
      await waitForScreen(page, 'page_sign_in');
      expect(await page.locator('main h1').textContent()).toBe(en('auth_required_title'));
      expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/experiment?x=1');
      await page.getByLabel(en('auth_user_name'), { exact: true }).fill(user.name);
      await page.getByLabel(en('auth_password'), { exact: true }).fill(user.password);
      await page.locator('form.auth_form').getByRole('button', { name: en('auth_sign_in_submit'), exact: true }).click();
      await page.locator('main#content.page_experiment').waitFor({ timeout: 10_000 });
      expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/experiment?x=1');
    } finally {
      await context.close();
    }
  } finally {
    await server.stop();
  }
}, 30_000);
